internal import CLibXML2

/// What a reader sees of a page: the text of its elements without
/// `script`, `style`, `noscript` and `template` (nor comments or markup),
/// block elements on lines of their own, `pre` keeping its line breaks
/// (decision 0027). One walk over the tree, within the budget.
extension HTMLDocument {
    /// The visible text of the whole document, lines separated by `\n`
    /// (not yet normalized: `WhitespaceNormalizer.normalizeLines` trims
    /// them and drops blank ones).
    func visibleText(budget: ExtractionBudget) throws -> String {
        var text: [UInt8] = []
        let root = UnsafeMutableRawPointer(document).assumingMemoryBound(to: xmlNode.self)
        try appendVisibleText(of: root, to: &text, alreadyCounted: 0, budget: budget)
        return String(decoding: text, as: UTF8.self)
    }

    /// Elements and the document read as visible text; text, attribute and
    /// other nodes a query selects keep their plain content.
    static func hasVisibleText(_ node: xmlNodePtr) -> Bool {
        switch node.pointee.type {
        case XML_ELEMENT_NODE, XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE, XML_DOCUMENT_FRAG_NODE: true
        default: false
        }
    }

    /// Appends the visible text of `root` and its descendants to `text`.
    /// Depth-first without recursion; `alreadyCounted` bytes of earlier
    /// matches count towards the text size limit.
    func appendVisibleText(of root: xmlNodePtr, to text: inout [UInt8], alreadyCounted: Int, budget: ExtractionBudget) throws {
        var preformatted = 0
        var visited = 0
        var node: xmlNodePtr? = root
        while let current = node {
            visited += 1
            if visited & 1023 == 0 {
                try budget.checkTime(during: "reading the visible text")
                try Self.checkTextSize(alreadyCounted + text.count, budget: budget)
            }
            var descend = false
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    Self.append(content, to: &text, keepingLineBreaks: preformatted > 0)
                }
            case XML_ELEMENT_NODE:
                let kind = ElementKind(current.pointee.name)
                if kind != .hidden {
                    if kind.breaksLines { text.append(0x0A) }
                    if kind == .preformatted { preformatted += 1 }
                    descend = true
                }
            case XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE, XML_DOCUMENT_FRAG_NODE:
                descend = true
            default:
                // Comments, processing instructions, DTDs, entity references.
                break
            }
            if descend, let child = current.pointee.children {
                node = child
                continue
            }
            // Leave this node, and every ancestor whose last child it was,
            // up to the next sibling; never past `root`.
            var leaving: xmlNodePtr? = current
            node = nil
            while let left = leaving {
                if left.pointee.type == XML_ELEMENT_NODE, left != current || descend {
                    let kind = ElementKind(left.pointee.name)
                    if kind.breaksLines { text.append(0x0A) }
                    if kind == .cell { text.append(0x20) }
                    if kind == .preformatted { preformatted -= 1 }
                }
                if left == root { break }
                if let sibling = left.pointee.next {
                    node = sibling
                    break
                }
                leaving = left.pointee.parent
            }
        }
        try Self.checkTextSize(alreadyCounted + text.count, budget: budget)
    }

    /// Text outside `pre` wraps like the browser wraps it: a line break in
    /// the source is a space.
    private static func append(_ content: UnsafePointer<xmlChar>, to text: inout [UInt8], keepingLineBreaks: Bool) {
        var byte = content
        while byte.pointee != 0 {
            let value = byte.pointee
            text.append(!keepingLineBreaks && (0x0A...0x0D).contains(value) ? 0x20 : value)
            byte += 1
        }
    }
}

/// How an element's text reads. libxml2's HTML parser gives names in
/// lower case.
private enum ElementKind {
    case inline
    case block
    case preformatted
    case cell
    case hidden

    init(_ name: UnsafePointer<xmlChar>?) {
        guard let name else {
            self = .inline
            return
        }
        self = Self.byName[String(cString: name)] ?? .inline
    }

    var breaksLines: Bool {
        self == .block || self == .preformatted
    }

    private static let byName: [String: ElementKind] = {
        var kinds: [String: ElementKind] = [:]
        for name in ["script", "style", "noscript", "template"] { kinds[name] = .hidden }
        for name in [
            "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog", "div", "dl", "dt",
            "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
            "hgroup", "hr", "legend", "li", "main", "menu", "nav", "ol", "option", "p", "section", "summary",
            "table", "tbody", "tfoot", "thead", "title", "tr", "ul",
        ] {
            kinds[name] = .block
        }
        kinds["pre"] = .preformatted
        kinds["textarea"] = .preformatted
        kinds["td"] = .cell
        kinds["th"] = .cell
        return kinds
    }()
}
