// Fixed-signature wrappers for the C APIs Swift cannot call directly:
// variadic functions (MHD_start_daemon, curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt).
// C has one namespace, so every symbol carries the CTidingsShims_ prefix.
#ifndef CTIDINGS_SHIMS_H
#define CTIDINGS_SHIMS_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <curl/curl.h>

// MARK: libmicrohttpd

/// MHD_start_daemon with every option passed through one MHD_OPTION_ARRAY.
struct MHD_Daemon *CTidingsShims_MHD_start_daemon(unsigned int flags,
                                                  uint16_t port,
                                                  MHD_AcceptPolicyCallback accept_policy,
                                                  void *accept_policy_cls,
                                                  MHD_AccessHandlerCallback handler,
                                                  void *handler_cls,
                                                  const struct MHD_OptionItem *options);

/// The MHD_OPTION_NOTIFY_COMPLETED callback as an option item (its pointer
/// must travel through the intptr_t `value` field, which Swift cannot cast).
struct MHD_OptionItem CTidingsShims_MHD_option_notify_completed(MHD_RequestCompletedCallback callback,
                                                                void *cls);

/// A logger that receives libmicrohttpd's messages already formatted.
/// The caller owns the struct and keeps it alive as long as the daemon.
typedef void (*CTidingsShims_MHD_log_callback)(void *cls, const char *message);
struct CTidingsShims_MHD_logger {
    CTidingsShims_MHD_log_callback callback;
    void *cls;
};

/// MHD_OPTION_EXTERNAL_LOGGER as an option item.
struct MHD_OptionItem CTidingsShims_MHD_option_logger(struct CTidingsShims_MHD_logger *logger);

/// MHD_OPTION_UNESCAPE_CALLBACK as an option item: percent-decoding of the
/// path and query like libmicrohttpd's own, except that "%00" stays as it
/// is. Decoded in place into a C string, a NUL would cut the path short
/// ("/v1/watches%00/x" would route as "/v1/watches").
struct MHD_OptionItem CTidingsShims_MHD_option_unescape_keeping_nul(void);

/// MHD_OPTION_SOCK_ADDR as an option item.
struct MHD_OptionItem CTidingsShims_MHD_option_sock_addr(const struct sockaddr *address);

/// The client address of a connection, or NULL.
const struct sockaddr *CTidingsShims_MHD_client_address(struct MHD_Connection *connection);

/// The port a daemon listens on (useful after binding port 0).
uint16_t CTidingsShims_MHD_bound_port(struct MHD_Daemon *daemon);

/// The request-line callback (MHD_OPTION_URI_LOG_CALLBACK) as an option item.
/// It sees the raw request target before parsing; its result becomes the
/// request's initial `req_cls`.
typedef void *(*CTidingsShims_MHD_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);
struct MHD_OptionItem CTidingsShims_MHD_option_uri_log(CTidingsShims_MHD_uri_log_callback callback, void *cls);

/// MHD_OPTION_NOTIFY_CONNECTION (started / closed) as an option item.
struct MHD_OptionItem CTidingsShims_MHD_option_notify_connection(MHD_NotifyConnectionCallback callback, void *cls);

/// The socket of a connection, or -1.
int CTidingsShims_MHD_connection_socket(struct MHD_Connection *connection);

/// The socket context the connection-notification callback stored, or NULL.
void *CTidingsShims_MHD_socket_context(struct MHD_Connection *connection);

/// The number of connections a daemon currently holds open.
unsigned int CTidingsShims_MHD_current_connections(struct MHD_Daemon *daemon);

// MARK: libcurl

CURLcode CTidingsShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode CTidingsShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode CTidingsShims_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode CTidingsShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode CTidingsShims_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode CTidingsShims_curl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback);
CURLcode CTidingsShims_curl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback);

CURLcode CTidingsShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode CTidingsShims_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode CTidingsShims_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
CURLcode CTidingsShims_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

CURLMcode CTidingsShims_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

#endif
