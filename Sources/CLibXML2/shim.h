#ifndef TIDINGS_CLIBXML2_H
#define TIDINGS_CLIBXML2_H
// Debian's libxml2 is built with ICU, so encoding.h would include the
// system's ICU headers; Foundation brings its own copy of them
// (_FoundationICU), and a Swift file that sees both modules fails to build
// ("UErrorCode has different definitions in different modules"), in a
// clean build and depending on the order modules are compiled. Tidings
// never touches the ICU fields at the end of xmlCharEncodingHandler (only
// libxml2's own code does), so its declarations are left out here.
#include <string.h>
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/chvalid.h>
#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/globals.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xpath.h>

// A few libxml2 paths (e.g. an unknown XPath function) print through the
// generic error handler, whose type is variadic and so cannot be written in
// Swift: these install a handler that drops the message, for the calling
// thread and as the default of threads created later.
static void CLibXML2_discard_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void CLibXML2_discard_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, CLibXML2_discard_generic_error);
}

static inline void CLibXML2_discard_generic_errors_by_default(void) {
    xmlThrDefSetGenericErrorFunc(NULL, CLibXML2_discard_generic_error);
}

// libxml2 has no way to cancel an XPath evaluation, but it compares the
// context's operation count with opLimit at every step and node visit:
// lowering the limit from another thread (the deadline's watchdog) stops
// the evaluation at its next check with "Operation limit exceeded".
static inline void CLibXML2_xpath_interrupt(xmlXPathContextPtr context) {
    __atomic_store_n(&context->opLimit, 1UL, __ATOMIC_RELAXED);
}

// htmlReadMemory, reading through `read` instead of from one buffer, so that
// the parser comes back between pieces (and stops when `read` returns -1).
// libxml2 2.9.14's htmlReadMemory, step for step (an XML parser context with
// the HTML SAX handler, then htmlDoRead): htmlReadIO would start from an
// HTML context instead, which guesses ISO-8859-1 for any UTF-8 page without
// a declared charset.
static inline htmlDocPtr CLibXML2_html_read_io(xmlInputReadCallback read, void *context, const char *encoding, int options) {
    xmlParserCtxtPtr parser = xmlCreateIOParserCtxt(NULL, NULL, read, NULL, context, XML_CHAR_ENCODING_NONE);
    if (parser == NULL) {
        return NULL;
    }
    if (parser->sax != NULL) {
        memcpy(parser->sax, &htmlDefaultSAXHandler, sizeof(xmlSAXHandlerV1));
    }
    htmlCtxtUseOptions(parser, options);
    parser->html = 1;
    if (encoding != NULL) {
        xmlCharEncodingHandlerPtr handler = xmlFindCharEncodingHandler(encoding);
        if (handler != NULL) {
            xmlSwitchToEncoding(parser, handler);
            if (parser->input->encoding != NULL) {
                xmlFree((xmlChar *)parser->input->encoding);
            }
            parser->input->encoding = xmlStrdup((const xmlChar *)encoding);
        }
    }
    htmlParseDocument(parser);
    htmlDocPtr document = parser->myDoc;
    parser->myDoc = NULL;
    if (parser->dictNames && document != NULL && document->dict == parser->dict) {
        parser->dict = NULL;
    }
    xmlFreeParserCtxt(parser);
    return document;
}
#endif
