import Testing
import TidingsExtraction

@Suite struct JSONPointerTests {
    static let document = Array(
        """
        {"a/b": 1, "m~n": "tilde", "": "empty key", "version": "1.2.3",
         "items": [{"id": 1, "tags": ["x", "y"]}, {"id": 2}],
         "nested": {"z": 1, "a": [true, null, 1.5, -7, "q\\"uote\\n"]}}
        """.utf8)

    private func text(at pointer: String) throws -> String {
        try ContentExtractor.extract(
            body: Self.document, contentType: "application/json", spec: ExtractionSpec(selector: .jsonPointer(pointer))
        ).text
    }

    // The RFC 6901 section 5 escapes plus arrays and nesting.
    @Test(arguments: [
        ("/a~1b", "1"),
        ("/m~0n", "tilde"),
        ("/", "empty key"),
        ("/version", "1.2.3"),
        ("/items/1/id", "2"),
        ("/items/0/tags/1", "y"),
        ("/items/0", #"{"id":1,"tags":["x","y"]}"#),
        ("/nested", #"{"a":[true,null,1.5,-7,"q\"uote\n"],"z":1}"#),
        ("/nested/a/1", "null"),
    ])
    func selectsValues(pointer: String, expected: String) throws {
        #expect(try text(at: pointer) == expected)
    }

    /// By `Character`, a prepended concatenation mark before `/` or `~`
    /// (`\u{600}/`) or a combining mark after `/` or `~1` made one
    /// `Character` of both and hid it: `/a\u{600}/b` named the member
    /// `a\u{600}/b`, `/\u{301}x` was refused, `~1\u{301}` was a bad escape.
    @Test(arguments: [
        ("/a\u{600}/b", "deep"),
        ("/a\u{600}~1b", "flat"),
        ("/\u{301}x", "mark"),
        ("/x~1\u{301}", "escaped"),
    ])
    func aMarkNextToADelimiterDoesNotHideIt(pointer: String, expected: String) throws {
        let document = Array(#"{"a\#u{600}": {"b": "deep"}, "a\#u{600}/b": "flat", "\#u{301}x": "mark", "x/\#u{301}": "escaped"}"#.utf8)
        let content = try ContentExtractor.extract(
            body: document, contentType: "application/json", spec: ExtractionSpec(selector: .jsonPointer(pointer)))
        #expect(content.text == expected)
    }

    @Test func emptyPointerIsTheWholeDocumentCanonically() throws {
        #expect(
            try text(at: "")
                == #"{"":"empty key","a/b":1,"items":[{"id":1,"tags":["x","y"]},{"id":2}],"m~n":"tilde","nested":{"a":[true,null,1.5,-7,"q\"uote\n"],"z":1},"version":"1.2.3"}"#
        )
    }

    @Test(arguments: [
        ("/missing", "no member 'missing' at ''"),
        ("/items/5", "index 5 is past the end (2 elements) at '/items'"),
        ("/items/01", "'01' is not an array index"),
        ("/items/-", "'-' is not an array index"),
        ("/version/x", "a scalar has no member 'x' at '/version'"),
        ("/nested/z/0", "a scalar has no member '0' at '/nested/z'"),
        ("/a~1b/c", "at '/a~1b'"),
    ])
    func missingPathsSayWhere(pointer: String, detail: String) throws {
        let error = try #require(throws: ExtractionError.self) { try text(at: pointer) }
        #expect(error.code == .jsonPointerNotFound)
        #expect(error.message.contains(detail), "\(error.message)")
    }

    @Test(arguments: ["version", "/~2", "/a~", "#/version"])
    func malformedPointersAreRejected(pointer: String) throws {
        let error = try #require(throws: ExtractionError.self) { try text(at: pointer) }
        #expect(error.code == .invalidJSONPointer)
    }

    @Test func invalidJSONIsRejected() throws {
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(body: Array("{\"a\": ".utf8), contentType: nil, spec: ExtractionSpec(selector: .jsonPointer("/a")))
        }
        #expect(error.code == .invalidJSON)
    }

    @Test func reorderedKeysAndLayoutExtractIdentically() throws {
        let first = Array(#"{"b": {"y": [1, 2], "x": "s"}, "a": 1.25, "c": null}"#.utf8)
        let second = Array("{\n  \"c\" : null,\n  \"a\" : 1.25,\n  \"b\" : { \"x\" : \"s\", \"y\" : [ 1, 2 ] }\n}".utf8)
        let spec = ExtractionSpec(selector: .jsonPointer(""))
        let one = try ContentExtractor.extract(body: first, contentType: "application/json", spec: spec)
        let two = try ContentExtractor.extract(body: second, contentType: "application/json", spec: spec)
        #expect(one == two)
        #expect(one.text == #"{"a":1.25,"b":{"x":"s","y":[1,2]},"c":null}"#)
        let changed = try ContentExtractor.extract(
            body: Array(#"{"a": 1.25, "b": {"x": "s", "y": [2, 1]}, "c": null}"#.utf8), contentType: nil, spec: spec)
        #expect(changed.hash != one.hash)
    }

    @Test func canonicalJSONEscapesOnlyWhatJSONRequires() throws {
        let value = try JSONValue(parsing: Array(#"{"k": "a/b \u0001 é \t"}"#.utf8))
        #expect(value.canonicalJSON == "{\"k\":\"a/b \\u0001 é \\t\"}")
    }
}
