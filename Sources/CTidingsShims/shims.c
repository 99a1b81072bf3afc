#include "CTidingsShims.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

static int CTidingsShims_hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t CTidingsShims_MHD_unescape_keeping_nul(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    const char *read = text;
    char *write = text;
    while (*read != '\0') {
        if (read[0] == '%') {
            int high = CTidingsShims_hex_value(read[1]);
            int low = high < 0 ? -1 : CTidingsShims_hex_value(read[2]);
            if (high >= 0 && low >= 0 && (high != 0 || low != 0)) {
                *write++ = (char)(high * 16 + low);
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = '\0';
    return (size_t)(write - text);
}

struct MHD_OptionItem CTidingsShims_MHD_option_unescape_keeping_nul(void) {
    struct MHD_OptionItem item = {
        MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)CTidingsShims_MHD_unescape_keeping_nul, NULL
    };
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

struct MHD_OptionItem CTidingsShims_MHD_option_notify_connection(MHD_NotifyConnectionCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)callback, cls };
    return item;
}

int CTidingsShims_MHD_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *CTidingsShims_MHD_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
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
