#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// What kura_mhd_start_server sets: every limit explicit.
struct kura_mhd_settings {
  /// The polling threads (each with its own epoll and share of the connections).
  unsigned int threads;
  /// The most connections at once (over all threads).
  unsigned int connections;
  /// The most connections from one IP address at once (0: no limit).
  unsigned int connections_per_address;
  /// Seconds a connection may stay silent before it is closed (0: never).
  unsigned int idle_timeout_seconds;
  /// Bytes of memory per connection (its header buffer and small bodies).
  size_t connection_memory;
  /// A listening socket made by the caller (a Unix socket), or -1 to listen on `address`.
  int listen_socket;
};

/// Starts a libmicrohttpd daemon on `address` (a `sockaddr_in`, or a `sockaddr_in6` when `ipv6`
/// is non-zero), or on `settings->listen_socket`, with a pool of polling threads (epoll,
/// suspend/resume): the variadic MHD_start_daemon, which Swift can't call. `notify` (if not NULL)
/// is told when a connection starts and closes. With `certificate_pem` and `key_pem`
/// (NUL-terminated PEM text, both or neither) it serves HTTPS (libmicrohttpd's GnuTLS); check
/// kura_mhd_supports_tls first.
static inline struct MHD_Daemon *kura_mhd_start_server(
    const struct sockaddr *address, int ipv6, const struct kura_mhd_settings *settings,
    MHD_AccessHandlerCallback handler, void *context, MHD_RequestCompletedCallback completed,
    MHD_NotifyConnectionCallback notify, const char *certificate_pem, const char *key_pem) {
  int tls = certificate_pem != NULL && key_pem != NULL;
  int own_socket = settings->listen_socket >= 0;
  struct MHD_OptionItem options[] = {
      {own_socket ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_SOCK_ADDR,
       own_socket ? settings->listen_socket : 0, own_socket ? NULL : (void *)address},
      {MHD_OPTION_THREAD_POOL_SIZE, settings->threads, NULL},
      {MHD_OPTION_CONNECTION_LIMIT, settings->connections, NULL},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->connections_per_address, NULL},
      {MHD_OPTION_CONNECTION_TIMEOUT, settings->idle_timeout_seconds, NULL},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->connection_memory, NULL},
      {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, context},
      {notify != NULL ? MHD_OPTION_NOTIFY_CONNECTION : MHD_OPTION_END, (intptr_t)notify, context},
      {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)certificate_pem},
      {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem},
      {MHD_OPTION_END, 0, NULL},
  };
  // Compact the array: an option switched off above is an END that would cut the rest.
  struct MHD_OptionItem used[sizeof options / sizeof options[0]];
  size_t count = 0;
  for (size_t index = 0; index < sizeof options / sizeof options[0]; index++) {
    if (options[index].option != MHD_OPTION_END) used[count++] = options[index];
  }
  used[count].option = MHD_OPTION_END;
  used[count].value = 0;
  used[count].ptr_value = NULL;
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                       (tls ? MHD_USE_TLS : 0) | (ipv6 && !own_socket ? MHD_USE_IPv6 : 0);
  return MHD_start_daemon(
      flags, 0, NULL, NULL, handler, context, MHD_OPTION_ARRAY, used, MHD_OPTION_END);
}

/// Whether this libmicrohttpd was built with TLS (GnuTLS), checked at run time.
static inline int kura_mhd_supports_tls(void) {
  return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/// The port the daemon listens on (the one the system chose for port 0).
static inline uint16_t kura_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// The connection's socket (-1 when libmicrohttpd doesn't say).
static inline int kura_mhd_connection_socket(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

/// MHD_SIZE_UNKNOWN, a macro Swift can't import: a response of unknown size (sent chunked).
static const uint64_t kura_mhd_size_unknown = MHD_SIZE_UNKNOWN;
/// MHD_CONTENT_READER_END_OF_STREAM: a content reader's "no more".
static const ssize_t kura_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
/// MHD_CONTENT_READER_END_WITH_ERROR: a content reader's "cut the response".
static const ssize_t kura_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
