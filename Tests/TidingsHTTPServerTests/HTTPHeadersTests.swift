import Testing
import TidingsHTTPServer

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-TYPE"] == "text/plain")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie"])
        #expect(headers["Missing"] == nil)
    }

    @Test func replaceOrAddKeepsOnePositionedValue() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.replaceOrAdd(name: "a", value: "x")
        #expect(headers.map(\.name) == ["A", "B"])
        #expect(headers["A"] == "x")
        headers.replaceOrAdd(name: "C", value: "new")
        #expect(headers.map(\.value) == ["x", "2", "new"])
        headers.remove(name: "b")
        #expect(headers.count == 2)
    }
}
