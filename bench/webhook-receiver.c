/* A webhook receiver for bench/webhooks.sh that is never the bottleneck:
 * libmicrohttpd on one epoll thread answers every POST with 204 and notes
 * the arrival time (CLOCK_REALTIME, microseconds) with the webhook-id. No
 * signature check: the tests verify signatures; this measures throughput.
 *   webhook-receiver PORT OUTPUT_FILE
 * GET /count answers the number of POSTs so far; SIGTERM writes
 * "<webhook-id> <unix microseconds> <path>" lines to OUTPUT_FILE and exits. */
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAPACITY 4000000

struct arrival { char id[40]; char path[24]; long long micros; };

static struct arrival *arrivals;
static long count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stopping;
static struct MHD_Response *empty;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **state) {
    (void)cls; (void)version; (void)data;
    if (*state == NULL) { *state = (void *)1; return MHD_YES; }
    if (*size > 0) { *size = 0; return MHD_YES; }
    if (strcmp(method, "GET") == 0) {
        char text[32];
        pthread_mutex_lock(&lock);
        int length = snprintf(text, sizeof text, "%ld\n", count);
        pthread_mutex_unlock(&lock);
        struct MHD_Response *response = MHD_create_response_from_buffer(length, text, MHD_RESPMEM_MUST_COPY);
        enum MHD_Result result = MHD_queue_response(connection, 200, response);
        MHD_destroy_response(response);
        return result;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const char *id = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "webhook-id");
    pthread_mutex_lock(&lock);
    if (count < CAPACITY) {
        struct arrival *arrival = &arrivals[count++];
        snprintf(arrival->id, sizeof arrival->id, "%s", id ? id : "-");
        snprintf(arrival->path, sizeof arrival->path, "%s", url);
        arrival->micros = (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    }
    pthread_mutex_unlock(&lock);
    return MHD_queue_response(connection, 204, empty);
}

static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s PORT OUTPUT_FILE\n", argv[0]); return 2; }
    arrivals = calloc(CAPACITY, sizeof *arrivals);
    empty = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD, (uint16_t)atoi(argv[1]), NULL, NULL, handle, NULL,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)4096, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
        MHD_OPTION_END);
    if (daemon == NULL) { perror("MHD_start_daemon"); return 1; }
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    while (!stopping) pause();
    MHD_stop_daemon(daemon);
    FILE *output = fopen(argv[2], "w");
    if (output == NULL) { perror(argv[2]); return 1; }
    for (long i = 0; i < count; i++) fprintf(output, "%s %lld %s\n", arrivals[i].id, arrivals[i].micros, arrivals[i].path);
    fclose(output);
    return 0;
}
