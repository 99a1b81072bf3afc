/* A mock APNs for bench/push.sh that is never the bottleneck: HTTP/2 over
 * TLS (ALPN h2, OpenSSL, libnghttp2), one thread per connection with
 * blocking I/O, so everything one TLS read brings is answered in one write.
 * Every POST /3/device/<token> gets 200 with an apns-id header, every POST
 * /wp/<token> (Web Push) 201 with a Location header and its encrypted body
 * unread (payload "-"); anything else gets 404. No JWT or header checks: the tests' mock does those; this
 * measures throughput and latency.
 *   push-mock PORT CERT_PEM KEY_PEM STATUS_FILE OUTPUT_FILE [MAX_STREAMS]
 * STATUS_FILE is rewritten every 100 ms with the counts so far:
 *   "<pushes> <connections> <connections that carried a push> <streams the client reset>".
 * SIGTERM writes one line per push to OUTPUT_FILE and exits:
 *   "<token> <arrival, unix microseconds (CLOCK_REALTIME)> <connection> <payload>"
 * where the arrival is when the request's last frame was read. Notes on
 * stderr: each connection's end (why, and how many streams the client
 * reset), GOAWAY frames, and the first RST_STREAM of each connection. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CAPACITY 4000000
#define TOKEN_MAX 100
#define PAYLOAD_MAX 60
#define DEVICE_PREFIX "/3/device/"
#define WEB_PUSH_PREFIX "/wp/"

struct arrival {
    char token[TOKEN_MAX + 1];
    char payload[PAYLOAD_MAX + 1];
    int connection;
    long long micros;
};

struct stream {
    char token[TOKEN_MAX + 1];
    char payload[PAYLOAD_MAX + 1];
    size_t payload_length;
    int is_push;
    int is_web;
};

struct connection {
    int fd;
    int number;
    int carried_push;
    long resets;
    SSL *ssl;
    nghttp2_session *session;
    unsigned char *out;
    size_t out_length, out_capacity;
};

static struct arrival *arrivals;
static atomic_long pushes, resets;
static atomic_int connections, push_connections;
static volatile sig_atomic_t stopping;
static SSL_CTX *context;
static unsigned int max_streams = 1000;

static void fail(const char *what) {
    fprintf(stderr, "push-mock: %s: %s\n", what, errno ? strerror(errno) : "error");
    ERR_print_errors_fp(stderr);
    exit(1);
}

static long long now_micros(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) fail("clock_gettime");
    return (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    struct stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NGHTTP2_ERR_CALLBACK_FAILURE;
    int set = nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, stream);
    if (set != 0) {
        fprintf(stderr, "push-mock: stream %d: %s\n", frame->hd.stream_id, nghttp2_strerror(set));
        free(stream);
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t name_length,
                     const uint8_t *value, size_t value_length, uint8_t flags, void *user) {
    (void)flags; (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    struct stream *stream = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (stream == NULL) return 0;
    if (name_length != 5 || memcmp(name, ":path", 5) != 0) return 0;
    int web = value_length > strlen(WEB_PUSH_PREFIX) && memcmp(value, WEB_PUSH_PREFIX, strlen(WEB_PUSH_PREFIX)) == 0;
    size_t prefix = strlen(web ? WEB_PUSH_PREFIX : DEVICE_PREFIX);
    if (value_length > prefix && value_length - prefix <= TOKEN_MAX && memcmp(value, web ? WEB_PUSH_PREFIX : DEVICE_PREFIX, prefix) == 0) {
        memcpy(stream->token, value + prefix, value_length - prefix);
        stream->token[value_length - prefix] = 0;
        stream->is_push = 1;
        stream->is_web = web;
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t length,
                         void *user) {
    (void)flags; (void)user;
    struct stream *stream = nghttp2_session_get_stream_user_data(session, stream_id);
    if (stream == NULL || stream->is_web) return 0;
    size_t room = PAYLOAD_MAX - stream->payload_length;
    size_t copied = length < room ? length : room;
    memcpy(stream->payload + stream->payload_length, data, copied);
    stream->payload_length += copied;
    return 0;
}

static int respond(nghttp2_session *session, struct connection *connection, int32_t stream_id, struct stream *stream) {
    if (stream == NULL || !stream->is_push) {
        const nghttp2_nv headers[] = {{(uint8_t *)":status", (uint8_t *)"404", 7, 3, NGHTTP2_NV_FLAG_NONE}};
        return nghttp2_submit_response(session, stream_id, headers, 1, NULL);
    }
    long long micros = now_micros();
    long index = atomic_fetch_add(&pushes, 1);
    if (index < CAPACITY) {
        struct arrival *arrival = &arrivals[index];
        memcpy(arrival->token, stream->token, sizeof arrival->token);
        memcpy(arrival->payload, stream->payload, sizeof arrival->payload);
        for (char *c = arrival->payload; *c; c++) if (*c == '\n' || *c == ' ') *c = '_';
        arrival->connection = connection->number;
        arrival->micros = micros;
    }
    if (!connection->carried_push) {
        connection->carried_push = 1;
        atomic_fetch_add(&push_connections, 1);
    }
    char id[40];
    int id_length = snprintf(id, sizeof id, "00000000-0000-4000-8000-%012lx", (unsigned long)index);
    if (stream->is_web) {
        const nghttp2_nv created[] = {
            {(uint8_t *)":status", (uint8_t *)"201", 7, 3, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"location", (uint8_t *)id, 8, (size_t)id_length, NGHTTP2_NV_FLAG_NONE},
        };
        return nghttp2_submit_response(session, stream_id, created, 2, NULL);
    }
    const nghttp2_nv headers[] = {
        {(uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE},
        {(uint8_t *)"apns-id", (uint8_t *)id, 7, (size_t)id_length, NGHTTP2_NV_FLAG_NONE},
    };
    return nghttp2_submit_response(session, stream_id, headers, 2, NULL);
}

static void note_goaway(const struct connection *connection, const nghttp2_frame *frame, const char *direction) {
    fprintf(stderr, "push-mock: connection %d: GOAWAY %s (%s, last stream %d)\n", connection->number, direction,
            nghttp2_http2_strerror(frame->goaway.error_code), frame->goaway.last_stream_id);
}

static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    (void)session;
    if (frame->hd.type == NGHTTP2_GOAWAY) note_goaway(user, frame, "sent");
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    if (frame->hd.type == NGHTTP2_GOAWAY) note_goaway(user, frame, "received");
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
        struct connection *connection = user;
        atomic_fetch_add(&resets, 1);
        if (connection->resets++ == 0)
            fprintf(stderr, "push-mock: connection %d: first RST_STREAM from the client, on stream %d (%s)\n",
                    connection->number, frame->hd.stream_id, nghttp2_http2_strerror(frame->rst_stream.error_code));
    }
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) || !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    struct stream *stream = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    int submitted = respond(session, user, frame->hd.stream_id, stream);
    if (submitted == 0) return 0;
    fprintf(stderr, "push-mock: cannot answer stream %d: %s\n", frame->hd.stream_id, nghttp2_strerror(submitted));
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user) {
    (void)error_code; (void)user;
    free(nghttp2_session_get_stream_user_data(session, stream_id));
    return 0;
}

/* Everything nghttp2 has to send, in one buffer, then one blocking write. */
static int flush(struct connection *connection) {
    connection->out_length = 0;
    for (;;) {
        const uint8_t *data;
        ssize_t length = nghttp2_session_mem_send(connection->session, &data);
        if (length < 0) return -1;
        if (length == 0) break;
        if (connection->out_length + (size_t)length > connection->out_capacity) {
            size_t capacity = (connection->out_length + (size_t)length) * 2;
            unsigned char *grown = realloc(connection->out, capacity);
            if (grown == NULL) return -1;
            connection->out = grown;
            connection->out_capacity = capacity;
        }
        memcpy(connection->out + connection->out_length, data, (size_t)length);
        connection->out_length += (size_t)length;
    }
    if (connection->out_length == 0) return 0;
    int written = SSL_write(connection->ssl, connection->out, (int)connection->out_length);
    return written == (int)connection->out_length ? 0 : -1;
}

static void *serve(void *argument) {
    struct connection *connection = argument;
    const char *why = "TLS or HTTP/2 set-up failed";
    int one = 1;
    if (setsockopt(connection->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) goto done;
    connection->ssl = SSL_new(context);
    if (connection->ssl == NULL || SSL_set_fd(connection->ssl, connection->fd) != 1 || SSL_accept(connection->ssl) != 1) goto done;
    const unsigned char *protocol = NULL;
    unsigned int protocol_length = 0;
    SSL_get0_alpn_selected(connection->ssl, &protocol, &protocol_length);
    if (protocol_length != 2 || memcmp(protocol, "h2", 2) != 0) goto done;

    nghttp2_session_callbacks *callbacks;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) goto done;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
    /* libcurl 7.88 resets every stream it is done with (RST_STREAM,
     * STREAM_CLOSED), even after a complete answer; nghttp2's rapid-reset
     * guard (1,000 at once, then 33/s) would end the connection with
     * GOAWAY after a few thousand pushes. The mock counts them instead. */
    nghttp2_option *options;
    if (nghttp2_option_new(&options) != 0) {
        nghttp2_session_callbacks_del(callbacks);
        goto done;
    }
    nghttp2_option_set_stream_reset_rate_limit(options, UINT64_MAX / 2, UINT64_MAX / 2);
    int created = nghttp2_session_server_new2(&connection->session, callbacks, connection, options);
    nghttp2_option_del(options);
    nghttp2_session_callbacks_del(callbacks);
    if (created != 0) goto done;
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20},
    };
    if (nghttp2_submit_settings(connection->session, NGHTTP2_FLAG_NONE, settings, 2) != 0) goto done;
    if (flush(connection) != 0) goto done;

    unsigned char buffer[65536];
    why = "the client finished";
    while (nghttp2_session_want_read(connection->session) || nghttp2_session_want_write(connection->session)) {
        int length = SSL_read(connection->ssl, buffer, sizeof buffer);
        if (length <= 0) { why = "closed by the client"; break; }
        ssize_t used = nghttp2_session_mem_recv(connection->session, buffer, (size_t)length);
        /* Answer what is already decrypted before the next read blocks. */
        while (used == length && SSL_pending(connection->ssl) > 0) {
            length = SSL_read(connection->ssl, buffer, sizeof buffer);
            if (length <= 0) { why = "closed by the client"; goto done; }
            used = nghttp2_session_mem_recv(connection->session, buffer, (size_t)length);
        }
        if (used != length) { why = used < 0 ? nghttp2_strerror((int)used) : "short read"; break; }
        if (flush(connection) != 0) { why = "write failed"; break; }
    }
done:
    fprintf(stderr, "push-mock: connection %d ended (%s) after %ld pushes in all; %ld streams reset by the client\n",
            connection->number, why, atomic_load(&pushes), connection->resets);
    if (connection->session) nghttp2_session_del(connection->session);
    if (connection->ssl) {
        SSL_shutdown(connection->ssl);
        SSL_free(connection->ssl);
    }
    close(connection->fd);
    free(connection->out);
    free(connection);
    return NULL;
}

static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *out_length, const unsigned char *in,
                     unsigned int in_length, void *arg) {
    (void)ssl; (void)arg;
    unsigned char *selected;
    if (nghttp2_select_next_protocol(&selected, out_length, in, in_length) != 1) return SSL_TLSEXT_ERR_NOACK;
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

static void write_status(const char *path) {
    char temporary[4096];
    if (snprintf(temporary, sizeof temporary, "%s.tmp", path) >= (int)sizeof temporary) fail("status path too long");
    FILE *file = fopen(temporary, "w");
    if (file == NULL) fail(temporary);
    if (fprintf(file, "%ld %d %d %ld\n", atomic_load(&pushes), atomic_load(&connections), atomic_load(&push_connections),
                atomic_load(&resets)) < 0
        || fclose(file) != 0 || rename(temporary, path) != 0)
        fail(path);
}

static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s PORT CERT_PEM KEY_PEM STATUS_FILE OUTPUT_FILE [MAX_STREAMS]\n", argv[0]);
        return 2;
    }
    if (argc == 7) max_streams = (unsigned int)strtoul(argv[6], NULL, 10);
    arrivals = calloc(CAPACITY, sizeof *arrivals);
    if (arrivals == NULL) fail("calloc");

    context = SSL_CTX_new(TLS_server_method());
    if (context == NULL || SSL_CTX_use_certificate_chain_file(context, argv[2]) != 1
        || SSL_CTX_use_PrivateKey_file(context, argv[3], SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(context) != 1)
        fail("TLS set-up");
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) fail("TLS version");
    SSL_CTX_set_alpn_select_cb(context, select_h2, NULL);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
        || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 128) != 0)
        fail("listen");
    struct sigaction action = {.sa_handler = stop};
    if (sigemptyset(&action.sa_mask) != 0 || sigaction(SIGTERM, &action, NULL) != 0 || sigaction(SIGINT, &action, NULL) != 0)
        fail("sigaction");
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) fail("signal");
    write_status(argv[4]);

    while (!stopping) {
        struct pollfd waiting = {.fd = listener, .events = POLLIN};
        int ready = poll(&waiting, 1, 100);
        if (ready < 0 && errno != EINTR) fail("poll");
        if (ready > 0) {
            int fd = accept(listener, NULL, NULL);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                fail("accept");
            }
            struct connection *connection = calloc(1, sizeof *connection);
            if (connection == NULL) fail("calloc");
            connection->fd = fd;
            connection->number = atomic_fetch_add(&connections, 1) + 1;
            pthread_t thread;
            pthread_attr_t attributes;
            if (pthread_attr_init(&attributes) != 0 || pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED) != 0
                || pthread_create(&thread, &attributes, serve, connection) != 0)
                fail("pthread_create");
            pthread_attr_destroy(&attributes);
        }
        write_status(argv[4]);
    }

    FILE *output = fopen(argv[5], "w");
    if (output == NULL) fail(argv[5]);
    long total = atomic_load(&pushes);
    if (total > CAPACITY) total = CAPACITY;
    for (long i = 0; i < total; i++) {
        const struct arrival *arrival = &arrivals[i];
        if (fprintf(output, "%s %lld %d %s\n", arrival->token, arrival->micros, arrival->connection,
                    arrival->payload[0] ? arrival->payload : "-") < 0)
            fail(argv[5]);
    }
    if (fclose(output) != 0) fail(argv[5]);
    write_status(argv[4]);
    return 0;
}
