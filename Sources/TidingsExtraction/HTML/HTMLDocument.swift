internal import CLibXML2

/// An HTML document parsed by libxml2's error-tolerant HTML parser, queried
/// with XPath 1.0 or the supported CSS subset.
///
/// Not `Sendable`: libxml2 documents must not be evaluated from two threads
/// at once. One thread at a time may use it (`ResponseContent` hands it on
/// between the sequential extraction jobs of one response).
package final class HTMLDocument {
    let document: xmlDocPtr
    private let budget: ExtractionBudget
    /// Whether the page is within the node limit, known once the first
    /// XPath evaluation asked: readable text walks the tree once, in
    /// linear time, and is not held to it.
    private var nodeLimit: Result<Void, ExtractionError>?

    /// Parses `bytes`. `encoding` (e.g. the charset of a `Content-Type`
    /// header) overrides any `<meta charset>`; without it libxml2 honours a
    /// BOM or `<meta>`, else reads UTF-8. Broken markup is repaired, never
    /// rejected, and no diagnostics are printed. Parsing, queries and the
    /// text they return stay within `limits`, counted from now.
    package convenience init(bytes: [UInt8], encoding: String? = nil, limits: ExtractionLimits = .default) throws {
        try self.init(bytes: bytes, encoding: encoding, budget: ExtractionBudget(limits: limits))
    }

    init(bytes: [UInt8], encoding: String?, budget: ExtractionBudget) throws {
        LibXML2.prepareCurrentThread()
        self.budget = budget
        guard bytes.count <= Int(Int32.max) else {
            throw ExtractionError(code: .documentTooLarge, message: "\(bytes.count) bytes exceed libxml2's limit")
        }
        // Without HTML_PARSE_HUGE libxml2 keeps its hard-coded limits: at
        // most 256 levels of nested elements (deeper ones are dropped) and
        // bounded names and text nodes. The input is bounded by the
        // poller's response cap.
        let options = Int32(
            bitPattern: HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
                | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        let input = HTMLInput(bytes: bytes, deadline: budget.deadline)
        let parsed: xmlDocPtr?
        if bytes.isEmpty {
            // libxml2 refuses an empty input; an empty body is an empty document.
            parsed = htmlNewDocNoDtD(nil, nil)
        } else {
            parsed = withExtendedLifetime(input) {
                CLibXML2_html_read_io(HTMLInput.read, Unmanaged.passUnretained(input).toOpaque(), encoding, options)
            }
        }
        if input.interrupted {
            if let parsed { xmlFreeDoc(parsed) }
            throw budget.timeLimitError(during: "parsing HTML")
        }
        guard let parsed else {
            throw ExtractionError(code: .unparsableHTML, message: "libxml2 could not build a document")
        }
        document = parsed
        try budget.checkTime(during: "parsing HTML")
    }

    /// Refuses documents with more nodes than `documentNodeLimit`, counting
    /// attributes too: libxml2 merges a step's node sets (`//div//p`,
    /// `//@* | //@*`) by comparing pairs of nodes without counting
    /// operations, so its uninterruptible work grows with the square of the
    /// number of nodes the sets can hold.
    private func checkNodeCount() throws {
        if nodeLimit == nil { nodeLimit = Result { () throws(ExtractionError) in try countNodes() } }
        try nodeLimit?.get()
    }

    private func countNodes() throws(ExtractionError) {
        let limit = budget.limits.documentNodeLimit
        var count = 0
        // Depth-first walk without recursion: children, else the next
        // sibling of the nearest ancestor that has one.
        var node = document.pointee.children
        while let current = node {
            count += 1
            if current.pointee.type == XML_ELEMENT_NODE {
                var attribute = current.pointee.properties
                while let present = attribute, count <= limit {
                    count += 1
                    attribute = present.pointee.next
                }
            }
            if count > limit {
                throw ExtractionError(
                    code: .tooManyNodes, message: "the page has more than \(limit) nodes, the most CSS and XPath rules work on")
            }
            if let child = current.pointee.children, current.pointee.type != XML_ENTITY_REF_NODE {
                node = child
                continue
            }
            var ancestor: xmlNodePtr? = current
            node = nil
            while let candidate = ancestor, UnsafeMutableRawPointer(candidate) != UnsafeMutableRawPointer(document) {
                if let sibling = candidate.pointee.next {
                    node = sibling
                    break
                }
                ancestor = candidate.pointee.parent
            }
        }
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// Evaluates an XPath 1.0 expression: the text content of every matched
    /// node in document order, or the single string, number or boolean an
    /// expression such as `string(//h1)` or `count(//li)` returns.
    package func xpath(_ expression: String) throws -> [String] {
        try xpath(expression, budget: budget, readable: false)
    }

    /// `xpath(_:)` within `budget` (a rule's own, on a shared document);
    /// `readable` gives matched elements as their visible text
    /// (`appendVisibleText`) rather than all the text inside them.
    func xpath(_ expression: String, budget: ExtractionBudget, readable: Bool) throws -> [String] {
        LibXML2.prepareCurrentThread()
        try checkNodeCount()
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
        context.pointee.opLimit = UInt(clamping: budget.limits.xpathOperationLimit)
        try budget.checkTime(during: "starting XPath")
        let watch = XPathWatchdog.shared.arm(context, deadline: budget.deadline)
        let evaluated = xmlXPathEvalExpression(expression, context)
        let interrupted = XPathWatchdog.shared.disarm(watch)
        guard let result = evaluated else {
            if interrupted { throw budget.timeLimitError(during: "evaluating XPath") }
            // libxml2 pins opCount to opLimit when the limit is hit; the
            // error it reports may be a later one from the aborted step.
            if context.pointee.opCount >= context.pointee.opLimit {
                throw ExtractionError(
                    code: .operationLimitExceeded,
                    message: "XPath evaluation needed more than \(budget.limits.xpathOperationLimit) operations"
                )
            }
            let detail = context.pointee.lastError.message.map { String(cString: $0) } ?? "evaluation failed"
            throw ExtractionError(
                code: .invalidXPath,
                message: "\(detail.trimmingTrailingNewlines) in '\(expression)'"
            )
        }
        defer { xmlXPathFreeObject(result) }
        switch result.pointee.type {
        case XPATH_NODESET:
            return try textContents(of: result.pointee.nodesetval, budget: budget, readable: readable)
        case XPATH_STRING:
            let text = result.pointee.stringval.map { String(cString: $0) } ?? ""
            try Self.checkTextSize(text.utf8.count, budget: budget)
            return [text]
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
    package func css(_ selector: String) throws -> [String] {
        try xpath(CSSSelectorTranslator.xpath(for: selector))
    }

    /// `css(_:)` within `budget`, elements as visible text when `readable`.
    func css(_ selector: String, budget: ExtractionBudget, readable: Bool) throws -> [String] {
        try xpath(CSSSelectorTranslator.xpath(for: selector), budget: budget, readable: readable)
    }

    /// The text of each node. Nested nodes repeat their descendants' text
    /// (`//*` on deep markup), so the total is capped and the deadline is
    /// checked between nodes.
    private func textContents(of nodes: xmlNodeSetPtr?, budget: ExtractionBudget, readable: Bool) throws -> [String] {
        guard let nodes, nodes.pointee.nodeNr > 0, let table = nodes.pointee.nodeTab else { return [] }
        // One buffer reused for every node: xmlNodeGetContent would hand
        // back memory that must go to xmlFree, a C global Swift 6 rejects.
        guard let buffer = xmlBufferCreate() else {
            throw ExtractionError(code: .unparsableHTML, message: "libxml2 could not allocate a buffer")
        }
        defer { xmlBufferFree(buffer) }
        var texts: [String] = []
        var total = 0
        texts.reserveCapacity(Int(nodes.pointee.nodeNr))
        for index in 0..<Int(nodes.pointee.nodeNr) {
            try budget.checkTime(during: "reading the text of matched nodes")
            if readable, let node = table[index], Self.hasVisibleText(node) {
                var text: [UInt8] = []
                try appendVisibleText(of: node, to: &text, alreadyCounted: total, budget: budget)
                total += text.count
                texts.append(String(decoding: text, as: UTF8.self))
                continue
            }
            xmlBufferEmpty(buffer)
            guard let node = table[index], xmlNodeBufGetContent(buffer, node) == 0,
                let content = xmlBufferContent(buffer)
            else {
                texts.append("")
                continue
            }
            let bytes = UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer)))
            total += bytes.count
            try Self.checkTextSize(total, budget: budget)
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        return texts
    }

    static func checkTextSize(_ bytes: Int, budget: ExtractionBudget) throws {
        let limit = budget.limits.textByteLimit
        if bytes > limit {
            throw ExtractionError(code: .textTooLarge, message: "the selected text is larger than \(limit) bytes")
        }
    }
}

/// What libxml2 parses, handed to it a kilobyte at a time. Parsing is not
/// linear: libxml2 compares each attribute of a start tag with every earlier
/// one of that tag, so one tag of 50,000 attributes (340 KB) took 30 s in a
/// single `htmlReadMemory` call. Read in pieces, the parser comes back for
/// more every kilobyte, and past the deadline it gets an error instead: it
/// stops there, at most one kilobyte's work late (plus building the element
/// it stopped in).
private final class HTMLInput {
    private let bytes: [UInt8]
    private let deadline: ContinuousClock.Instant
    private var offset = 0
    /// True once a read was refused at the deadline.
    private(set) var interrupted = false

    /// Small enough that the work between two reads stays far below the
    /// budget; large enough that reading costs nothing next to parsing.
    private static let chunk = 1024

    init(bytes: [UInt8], deadline: ContinuousClock.Instant) {
        self.bytes = bytes
        self.deadline = deadline
    }

    /// libxml2's `xmlInputReadCallback`: up to `length` bytes into `buffer`,
    /// 0 at the end, -1 (an I/O error, which ends the parse) at the deadline.
    static let read: xmlInputReadCallback = { context, buffer, length in
        guard let context, let buffer else { return -1 }
        return Unmanaged<HTMLInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, length: Int(length))
    }

    private func read(into buffer: UnsafeMutablePointer<CChar>, length: Int) -> Int32 {
        if interrupted || ContinuousClock.now >= deadline {
            interrupted = true
            return -1
        }
        let count = min(length, Self.chunk, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return Int32(count)
    }
}

extension String {
    /// libxml2 messages end in a newline.
    fileprivate var trimmingTrailingNewlines: Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)].isNewline { end = index(before: end) }
        return self[..<end]
    }
}
