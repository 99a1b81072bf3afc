/* The floor of the mixed workload with the design card's libraries: what a
 * check costs when nothing but libcurl, libxml2 and libcrypto do its work.
 * No database, no scheduling, no Swift: each of WATCHES targets (watch i on
 * line i mod pages of PAGES_FILE, its own URL with ?w=i, as bench/poller.sh
 * makes them) is checked in turn, CONCURRENCY at a time on one thread, the
 * way Tidings' poller checks it:
 *   - a conditional GET with the target's stored ETag or Last-Modified,
 *     every encoding libcurl decodes accepted, connections kept alive;
 *   - a 304 ends the check;
 *   - a 200 body is hashed (SHA-256); the same hash as last time ends it;
 *   - otherwise libxml2 parses the page, XPath finds SELECTOR_ID's element,
 *     its text is whitespace-normalized and hashed, and compared with the
 *     stored hash (a difference after the first check is a false change:
 *     the bench's pages never change).
 * After WARMUP seconds (every target has its baseline by then) it measures
 * a window of SECONDS: checks, its own CPU and the origin's (ORIGIN_PID's
 * CPU from /proc), and prints one line of figures.
 *   mix-floor BASE_URL PAGES_FILE WATCHES CONCURRENCY WARMUP SECONDS ORIGIN_PID SELECTOR_ID */
#include <curl/curl.h>
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct target {
    char *url;
    char *etag, *last_modified;
    unsigned char raw[SHA256_DIGEST_LENGTH], content[SHA256_DIGEST_LENGTH];
    int has_raw, has_content;
};

struct slot {
    CURL *easy;
    struct curl_slist *headers;
    struct target *target;
    char *body;
    size_t length, capacity;
    char *etag, *last_modified;
};

static struct target *targets;
static long target_count, next_target;
static long checks, false_changes, failures;

static void die(const char *what) { fprintf(stderr, "mix-floor: %s\n", what); exit(1); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double own_cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static double process_cpu(long pid) {
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file || !fgets(line, sizeof line, file)) die("cannot read the origin's /proc stat");
    fclose(file);
    char *field = strrchr(line, ')');
    unsigned long user = 0, system = 0;
    /* Fields 14 and 15 (utime, stime) are the 12th and 13th after the name. */
    if (!field || sscanf(field + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) != 2)
        die("cannot parse the origin's /proc stat");
    return (double)(user + system) / sysconf(_SC_CLK_TCK);
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    struct slot *slot = context;
    size_t bytes = size * count;
    if (slot->length + bytes > slot->capacity) {
        slot->capacity = (slot->length + bytes) * 2;
        slot->body = realloc(slot->body, slot->capacity);
        if (!slot->body) die("out of memory");
    }
    memcpy(slot->body + slot->length, data, bytes);
    slot->length += bytes;
    return bytes;
}

static char *header_value(const char *line, size_t length, const char *name) {
    size_t name_length = strlen(name);
    if (length <= name_length || strncasecmp(line, name, name_length) != 0) return NULL;
    const char *start = line + name_length, *end = line + length;
    while (start < end && (*start == ' ' || *start == '\t')) start++;
    while (end > start && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    return strndup(start, end - start);
}

static size_t on_header(char *line, size_t size, size_t count, void *context) {
    struct slot *slot = context;
    size_t length = size * count;
    char *value;
    if ((value = header_value(line, length, "etag:"))) { free(slot->etag); slot->etag = value; }
    if ((value = header_value(line, length, "last-modified:"))) { free(slot->last_modified); slot->last_modified = value; }
    return length;
}

static void start(CURLM *multi, struct slot *slot) {
    struct target *target = &targets[next_target++ % target_count];
    slot->target = target;
    slot->length = 0;
    free(slot->etag); free(slot->last_modified);
    slot->etag = slot->last_modified = NULL;
    curl_slist_free_all(slot->headers);
    slot->headers = NULL;
    char header[512];
    if (target->etag) {
        snprintf(header, sizeof header, "If-None-Match: %s", target->etag);
        slot->headers = curl_slist_append(slot->headers, header);
    } else if (target->last_modified) {
        snprintf(header, sizeof header, "If-Modified-Since: %s", target->last_modified);
        slot->headers = curl_slist_append(slot->headers, header);
    }
    curl_easy_setopt(slot->easy, CURLOPT_URL, target->url);
    curl_easy_setopt(slot->easy, CURLOPT_HTTPHEADER, slot->headers);
    if (curl_multi_add_handle(multi, slot->easy) != CURLM_OK) die("curl_multi_add_handle failed");
}

/* The element's text with runs of whitespace made one space, trimmed. */
static size_t normalized_text(xmlNodePtr node, char *out, size_t capacity) {
    xmlChar *text = xmlNodeGetContent(node);
    size_t length = 0;
    int space = 0;
    for (const xmlChar *c = text; c && *c && length + 1 < capacity; c++) {
        if (*c == ' ' || *c == '\n' || *c == '\t' || *c == '\r' || *c == '\f') { space = length > 0; continue; }
        if (space) { out[length++] = ' '; space = 0; }
        if (length + 1 < capacity) out[length++] = (char)*c;
    }
    xmlFree(text);
    return length;
}

static void finish(struct slot *slot, const xmlChar *xpath, char *text, size_t text_capacity) {
    struct target *target = slot->target;
    long status = 0;
    curl_easy_getinfo(slot->easy, CURLINFO_RESPONSE_CODE, &status);
    checks++;
    if (status == 304) return;
    if (status != 200) { failures++; return; }
    free(target->etag); free(target->last_modified);
    target->etag = slot->etag; target->last_modified = slot->last_modified;
    slot->etag = slot->last_modified = NULL;
    unsigned char raw[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)slot->body, slot->length, raw);
    if (target->has_raw && memcmp(raw, target->raw, sizeof raw) == 0) return;
    memcpy(target->raw, raw, sizeof raw);
    target->has_raw = 1;
    htmlDocPtr document = htmlReadMemory(slot->body, (int)slot->length, target->url, NULL,
                                         HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                         HTML_PARSE_NONET | HTML_PARSE_COMPACT);
    if (!document) { failures++; return; }
    xmlXPathContextPtr context = xmlXPathNewContext(document);
    xmlXPathObjectPtr found = context ? xmlXPathEvalExpression(xpath, context) : NULL;
    size_t length = 0;
    if (found && found->nodesetval && found->nodesetval->nodeNr > 0)
        length = normalized_text(found->nodesetval->nodeTab[0], text, text_capacity);
    xmlXPathFreeObject(found);
    xmlXPathFreeContext(context);
    xmlFreeDoc(document);
    unsigned char content[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)text, length, content);
    if (target->has_content && memcmp(content, target->content, sizeof content) != 0) false_changes++;
    memcpy(target->content, content, sizeof content);
    target->has_content = 1;
}

int main(int argc, char **argv) {
    if (argc != 9) die("usage: mix-floor BASE_URL PAGES_FILE WATCHES CONCURRENCY WARMUP SECONDS ORIGIN_PID SELECTOR_ID");
    const char *base = argv[1];
    long watches = atol(argv[3]), concurrency = atol(argv[4]), origin = atol(argv[7]);
    double warmup = atof(argv[5]), seconds = atof(argv[6]);
    if (watches <= 0 || concurrency <= 0 || seconds <= 0) die("WATCHES, CONCURRENCY and SECONDS must be positive");

    FILE *pages_file = fopen(argv[2], "r");
    if (!pages_file) die("cannot open PAGES_FILE");
    char **pages = NULL, line[1024];
    long page_count = 0;
    while (fgets(line, sizeof line, pages_file)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!*line) continue;
        pages = realloc(pages, (page_count + 1) * sizeof *pages);
        pages[page_count++] = strdup(line);
    }
    fclose(pages_file);
    if (page_count == 0) die("PAGES_FILE has no pages");
    targets = calloc(watches, sizeof *targets);
    target_count = watches;
    for (long i = 0; i < watches; i++) {
        char url[2048];
        snprintf(url, sizeof url, "%s%s?w=%ld", base, pages[i % page_count], i);
        targets[i].url = strdup(url);
    }
    char xpath[256];
    snprintf(xpath, sizeof xpath, "//*[@id='%s']", argv[8]);

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) die("curl_global_init failed");
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);
    struct slot *slots = calloc(concurrency, sizeof *slots);
    for (long i = 0; i < concurrency; i++) {
        CURL *easy = slots[i].easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &slots[i]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &slots[i]);
        curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(easy, CURLOPT_HEADERDATA, &slots[i]);
        curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 30000L);
        start(multi, &slots[i]);
    }
    size_t text_capacity = 1 << 22;
    char *text = malloc(text_capacity);

    double began = now(), window_start = began + warmup, window_end = window_start + seconds;
    int measuring = 0;
    long checks0 = 0, false0 = 0;
    double cpu0 = 0, origin0 = 0;
    for (;;) {
        int running = 0;
        if (curl_multi_perform(multi, &running) != CURLM_OK) die("curl_multi_perform failed");
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            struct slot *slot;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&slot);
            curl_multi_remove_handle(multi, slot->easy);
            if (message->data.result == CURLE_OK) finish(slot, (const xmlChar *)xpath, text, text_capacity);
            else { checks++; failures++; }
            start(multi, slot);
        }
        double t = now();
        if (!measuring && t >= window_start) {
            measuring = 1;
            checks0 = checks; false0 = false_changes; cpu0 = own_cpu(); origin0 = process_cpu(origin);
        }
        if (measuring && t >= window_end) break;
        if (curl_multi_poll(multi, NULL, 0, 100, NULL) != CURLM_OK) die("curl_multi_poll failed");
    }
    double elapsed = now() - window_start;
    long measured = checks - checks0;
    double cpu = own_cpu() - cpu0, origin_cpu = process_cpu(origin) - origin0;
    if (measured <= 0) die("no checks in the window");
    printf("floor: %ld checks in %.1f s = %.0f checks/s | client %.1f us/check (%.2f cores), origin %.1f us/check | "
           "%ld false changes, %ld failures\n",
           measured, elapsed, measured / elapsed, cpu / measured * 1e6, cpu / elapsed, origin_cpu / measured * 1e6,
           false_changes - false0, failures);
    return 0;
}
