import CLibXML2

/// An HTML document parsed by libxml2's error-tolerant HTML parser, queried
/// with XPath 1.0 or the supported CSS subset.
///
/// Not `Sendable`: libxml2 documents must not be evaluated from two threads
/// at once. Parse, query and drop it within one call.
public final class HTMLDocument {
    private let document: xmlDocPtr

    /// Parses `bytes`. `encoding` (e.g. the charset of a `Content-Type`
    /// header) overrides any `<meta charset>`; without it libxml2 honours a
    /// BOM or `<meta>`, else reads UTF-8. Broken markup is repaired, never
    /// rejected, and no diagnostics are printed.
    public init(bytes: [UInt8], encoding: String? = nil) throws {
        LibXML2.prepareCurrentThread()
        guard bytes.count <= Int(Int32.max) else {
            throw ExtractionError(code: .documentTooLarge, message: "\(bytes.count) bytes exceed libxml2's limit")
        }
        let options = Int32(bitPattern: HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        let parsed: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                // libxml2 refuses an empty buffer; an empty body is an empty document.
                return htmlNewDocNoDtD(nil, nil)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { characters in
                htmlReadMemory(characters, Int32(buffer.count), nil, encoding, options)
            }
        }
        guard let parsed else {
            throw ExtractionError(code: .unparsableHTML, message: "libxml2 could not build a document")
        }
        document = parsed
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// Evaluates an XPath 1.0 expression: the text content of every matched
    /// node in document order, or the single string, number or boolean an
    /// expression such as `string(//h1)` or `count(//li)` returns.
    public func xpath(_ expression: String) throws -> [String] {
        LibXML2.prepareCurrentThread()
        guard let context = xmlXPathNewContext(document) else {
            throw ExtractionError(code: .invalidXPath, message: "libxml2 could not create an XPath context")
        }
        defer { xmlXPathFreeContext(context) }
        // The context's own handler receives XPath errors; its lastError
        // keeps the message for the thrown error.
        context.pointee.error = { _, _ in }
        // Relative expressions such as `string(.)` start at the document
        // node; libxml2 lays xmlDoc out to be used as an xmlNode.
        context.pointee.node = UnsafeMutableRawPointer(document).assumingMemoryBound(to: xmlNode.self)
        guard let result = xmlXPathEvalExpression(expression, context) else {
            let detail = context.pointee.lastError.message.map { String(cString: $0) } ?? "evaluation failed"
            throw ExtractionError(
                code: .invalidXPath,
                message: "\(detail.trimmingTrailingNewlines) in '\(expression)'"
            )
        }
        defer { xmlXPathFreeObject(result) }
        switch result.pointee.type {
        case XPATH_NODESET:
            return Self.textContents(of: result.pointee.nodesetval)
        case XPATH_STRING:
            return [result.pointee.stringval.map { String(cString: $0) } ?? ""]
        case XPATH_NUMBER:
            return [XPathNumber.render(result.pointee.floatval)]
        case XPATH_BOOLEAN:
            return [result.pointee.boolval != 0 ? "true" : "false"]
        default:
            throw ExtractionError(code: .invalidXPath, message: "'\(expression)' returns an unsupported result type")
        }
    }

    /// Evaluates a CSS selector of the supported subset (see
    /// `CSSSelectorTranslator`) through its XPath translation.
    public func css(_ selector: String) throws -> [String] {
        try xpath(CSSSelectorTranslator.xpath(for: selector))
    }

    private static func textContents(of nodes: xmlNodeSetPtr?) -> [String] {
        guard let nodes, nodes.pointee.nodeNr > 0, let table = nodes.pointee.nodeTab else { return [] }
        // One buffer reused for every node: xmlNodeGetContent would hand
        // back memory that must go to xmlFree, a C global Swift 6 rejects.
        guard let buffer = xmlBufferCreate() else { return [] }
        defer { xmlBufferFree(buffer) }
        var texts: [String] = []
        texts.reserveCapacity(Int(nodes.pointee.nodeNr))
        for index in 0..<Int(nodes.pointee.nodeNr) {
            xmlBufferEmpty(buffer)
            guard let node = table[index], xmlNodeBufGetContent(buffer, node) == 0,
                  let content = xmlBufferContent(buffer) else {
                texts.append("")
                continue
            }
            let bytes = UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer)))
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        return texts
    }
}

private extension String {
    /// libxml2 messages end in a newline.
    var trimmingTrailingNewlines: Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)].isNewline { end = index(before: end) }
        return self[..<end]
    }
}
