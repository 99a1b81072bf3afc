#include "CTidingsShims.h"

#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct MHD_Daemon *CTidingsShims_MHD_start_daemon(unsigned int flags,
                                                  uint16_t port,
                                                  MHD_AcceptPolicyCallback accept_policy,
                                                  void *accept_policy_cls,
                                                  MHD_AccessHandlerCallback handler,
                                                  void *handler_cls,
                                                  const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

struct MHD_OptionItem CTidingsShims_MHD_option_notify_completed(MHD_RequestCompletedCallback callback,
                                                                void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

static void CTidingsShims_MHD_log_trampoline(void *cls, const char *format, va_list arguments) {
    struct CTidingsShims_MHD_logger *logger = cls;
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    logger->callback(logger->cls, message);
}

struct MHD_OptionItem CTidingsShims_MHD_option_logger(struct CTidingsShims_MHD_logger *logger) {
    struct MHD_OptionItem item = { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)CTidingsShims_MHD_log_trampoline, logger };
    return item;
}

struct MHD_OptionItem CTidingsShims_MHD_option_sock_addr(const struct sockaddr *address) {
    struct MHD_OptionItem item = { MHD_OPTION_SOCK_ADDR, 0, (void *)address };
    return item;
}

const struct sockaddr *CTidingsShims_MHD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

uint16_t CTidingsShims_MHD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

struct MHD_OptionItem CTidingsShims_MHD_option_uri_log(CTidingsShims_MHD_uri_log_callback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)callback, cls };
    return item;
}

unsigned int CTidingsShims_MHD_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

CURLcode CTidingsShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CTidingsShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CTidingsShims_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CTidingsShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CTidingsShims_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode CTidingsShims_curl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode CTidingsShims_curl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

CURLcode CTidingsShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CTidingsShims_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CTidingsShims_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode CTidingsShims_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode CTidingsShims_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

void CTidingsShims_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

// MARK: libcurl event loop

struct CTidingsShims_CurlEventLoop {
    CURLM *multi;
    int epoll_fd;
    int wake_fd;
};

static int event_loop_socket(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    CTidingsShims_CurlEventLoop *loop = userp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(loop->epoll_fd, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = socket;
    // A closed descriptor leaves epoll by itself, so a number libcurl
    // reuses may be new to it: modify, else add.
    if (epoll_ctl(loop->epoll_fd, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
}

CTidingsShims_CurlEventLoop *CTidingsShims_curl_event_loop_create(CURLM *multi) {
    CTidingsShims_CurlEventLoop *loop = calloc(1, sizeof(*loop));
    if (loop == NULL) return NULL;
    loop->multi = multi;
    loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    loop->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = loop->wake_fd;
    if (loop->epoll_fd < 0 || loop->wake_fd < 0
        || epoll_ctl(loop->epoll_fd, EPOLL_CTL_ADD, loop->wake_fd, &event) != 0
        || curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, event_loop_socket) != CURLM_OK
        || curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop) != CURLM_OK) {
        curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, NULL);
        CTidingsShims_curl_event_loop_destroy(loop);
        return NULL;
    }
    return loop;
}

void CTidingsShims_curl_event_loop_destroy(CTidingsShims_CurlEventLoop *loop) {
    if (loop == NULL) return;
    if (loop->epoll_fd >= 0) close(loop->epoll_fd);
    if (loop->wake_fd >= 0) close(loop->wake_fd);
    free(loop);
}

void CTidingsShims_curl_event_loop_wake(CTidingsShims_CurlEventLoop *loop) {
    uint64_t one = 1;
    // EAGAIN only when the counter is full, i.e. a wake is pending anyway.
    ssize_t written = write(loop->wake_fd, &one, sizeof(one));
    (void)written;
}

CURLMcode CTidingsShims_curl_event_loop_run_once(CTidingsShims_CurlEventLoop *loop, int max_wait_ms) {
    // libcurl's next timeout is asked for rather than tracked through
    // CURLMOPT_TIMERFUNCTION: that callback is skipped when the earliest
    // timer did not change, so a timeout acted on a little early would be
    // lost until the next event.
    long timeout_ms = -1;
    curl_multi_timeout(loop->multi, &timeout_ms);
    int wait_ms = (timeout_ms >= 0 && timeout_ms < max_wait_ms) ? (int)timeout_ms : max_wait_ms;
    struct epoll_event events[128];
    int count = epoll_wait(loop->epoll_fd, events, 128, wait_ms);
    CURLMcode first_error = CURLM_OK;
    int running = 0;
    for (int i = 0; i < count; i++) {
        int fd = events[i].data.fd;
        if (fd == loop->wake_fd) {
            uint64_t value;
            ssize_t got = read(loop->wake_fd, &value, sizeof(value));
            (void)got;
            continue;
        }
        uint32_t flags = events[i].events;
        int mask = ((flags & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((flags & EPOLLOUT) ? CURL_CSELECT_OUT : 0)
            | ((flags & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
        CURLMcode code = curl_multi_socket_action(loop->multi, fd, mask, &running);
        if (first_error == CURLM_OK) first_error = code;
    }
    timeout_ms = -1;
    curl_multi_timeout(loop->multi, &timeout_ms);
    if (timeout_ms == 0) {
        CURLMcode code = curl_multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        if (first_error == CURLM_OK) first_error = code;
    }
    return first_error;
}
