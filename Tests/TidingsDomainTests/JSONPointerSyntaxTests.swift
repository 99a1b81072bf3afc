import Testing
import TidingsDomain

@Suite struct JSONPointerSyntaxTests {
    /// `hasPrefix("/")` compares `Character`s, and a combining mark after
    /// the slash makes one with it: `/\u{301}x` was refused as not starting
    /// with `/`.
    @Test(arguments: ["/\u{301}x", "/a\u{600}/b", "/x~1\u{301}"])
    func aMarkNextToASlashIsStillAPointer(pointer: String) {
        #expect(JSONPointer.isValid(pointer))
    }

    @Test(arguments: ["\u{301}/x", "a/b", "/~\u{301}"])
    func otherwiseMalformedPointersStayRefused(pointer: String) {
        #expect(!JSONPointer.isValid(pointer))
    }
}
