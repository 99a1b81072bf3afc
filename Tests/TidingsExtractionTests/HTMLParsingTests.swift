import Glibc
import Testing
import TidingsExtraction

@Suite struct HTMLParsingTests {
    @Test func malformedMarkupIsRepaired() throws {
        let document = try HTMLDocument(bytes: Array("<div id=x><p>one<p>two</div><span class=a>three<table><td>cell</b>&bogus; <".utf8))
        #expect(try document.css("#x p") == ["one", "two"])
        let cells = try document.css("span.a td")
        #expect(cells == ["cell&bogus; <"])
    }

    @Test func emptyAndBinaryBodiesParse() throws {
        #expect(try HTMLDocument(bytes: []).css("p").isEmpty)
        #expect(try HTMLDocument(bytes: []).xpath("count(//*)") == ["0"])
        #expect(try HTMLDocument(bytes: Array(" \n\t".utf8)).css("p").isEmpty)
        #expect(try HTMLDocument(bytes: Array("plain text".utf8)).xpath("string(.)") == ["plain text"])
        let binary: [UInt8] = [0x00, 0xff, 0xfe, 0x3c, 0x70, 0x3e, 0x80, 0x00]
        _ = try HTMLDocument(bytes: binary).xpath("//p")
    }

    @Test func utf8IsTheDefault() throws {
        let document = try HTMLDocument(bytes: Array("<p>Café naïve — ✓</p>".utf8))
        #expect(try document.css("p") == ["Café naïve — ✓"])
    }

    @Test func latin1DeclaredInMetaDecodes() throws {
        let body: [UInt8] =
            Array(#"<html><head><meta charset="iso-8859-1"></head><body><p>Caf"#.utf8)
            + [0xe9] + Array(" na".utf8) + [0xef] + Array("ve</p></body></html>".utf8)
        #expect(try HTMLDocument(bytes: body).css("p") == ["Café naïve"])
    }

    @Test func latin1DeclaredInContentTypeDecodes() throws {
        let body: [UInt8] = Array("<html><body><p>Gr".utf8) + [0xfc, 0xdf] + Array("e</p></body></html>".utf8)
        let extracted = try ContentExtractor.extract(
            body: body,
            contentType: "text/html; charset=\"ISO-8859-1\"",
            spec: ExtractionSpec(selector: .css("p"))
        )
        #expect(extracted.text == "Grüße")
    }

    @Test func contentTypeCharsetOverridesMeta() throws {
        let body: [UInt8] = Array(#"<meta charset="utf-8"><p>"#.utf8) + [0xe9] + Array("t".utf8) + [0xe9] + Array("</p>".utf8)
        let extracted = try ContentExtractor.extract(
            body: body,
            contentType: "text/html;charset=windows-1252",
            spec: ExtractionSpec(selector: .xpath("//p"))
        )
        #expect(extracted.text == "été")
    }

    @Test func libxml2PrintsNothingOnBrokenInput() throws {
        let output = try StandardErrorCapture.capture {
            // The capture itself works: this line must come back.
            _ = "capture-check\n".withCString { write(2, $0, strlen($0)) }
            let broken: [UInt8] =
                Array("<html><body><p>unclosed <div></span>&bogus; <!-- x <b><i></b></i>".utf8)
                + [0xc3, 0x28, 0xff] + Array("<?php ?></foo:bar><script>if (a < b) {}</script>".utf8)
            let document = try HTMLDocument(bytes: broken)
            _ = try document.css("p")
            #expect(throws: ExtractionError.self) { try document.xpath("//[") }
            #expect(throws: ExtractionError.self) { try document.xpath("unknown-function(1)") }
            _ = try HTMLDocument(bytes: broken, encoding: "x-no-such-charset").xpath("//p")
            _ = try HTMLDocument(bytes: Array("<p>".utf8), encoding: "UTF-16").xpath("//p")
        }
        #expect(output.contains("capture-check"))
        for marker in ["parser error", "parser warning", "XPath error", "not found", "encoding error", "I/O error", "Entity: line"] {
            #expect(!output.contains(marker), "libxml2 wrote to stderr: \(output)")
        }
    }
}
