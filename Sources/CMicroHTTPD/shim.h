#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#if __has_include(<microhttpd.h>)
#include <microhttpd.h>
#else
#error "Kura's sync server (KuraSyncServer) needs libmicrohttpd's headers: install them with `apt-get install libmicrohttpd-dev` (or run scripts/setup, which installs everything the build and the tests need)."
#endif

/// Starts a libmicrohttpd daemon on `address` (a `sockaddr_in`, or a `sockaddr_in6` when `ipv6`
/// is non-zero) with a pool of `threads` polling threads: the
/// variadic MHD_start_daemon, which Swift can't call, with the options Kura's sync server sets
/// (every limit explicit: connections, per-connection memory, idle timeout). With
/// `certificate_pem` and `key_pem` (NUL-terminated PEM text, both or neither) it serves HTTPS
/// (libmicrohttpd's GnuTLS); check kura_mhd_supports_tls first.
static inline struct MHD_Daemon *kura_mhd_start(
    const struct sockaddr *address, int ipv6, MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed, unsigned int threads, unsigned int connections,
    unsigned int timeout_seconds, const char *certificate_pem, const char *key_pem) {
  int tls = certificate_pem != NULL && key_pem != NULL;
  struct MHD_OptionItem options[] = {
      {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
      {MHD_OPTION_THREAD_POOL_SIZE, threads, NULL},
      {MHD_OPTION_CONNECTION_LIMIT, connections, NULL},
      {MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, NULL},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 128 * 1024, NULL},
      {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, context},
      {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)certificate_pem},
      {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem},
      {MHD_OPTION_END, 0, NULL},
  };
  // Suspend/resume: a pull waiting for a push is parked without holding a polling thread.
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                       (tls ? MHD_USE_TLS : 0) | (ipv6 ? MHD_USE_IPv6 : 0);
  return MHD_start_daemon(
      flags, 0, NULL, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
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
