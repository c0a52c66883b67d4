#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Starts a libmicrohttpd daemon on `address` with a pool of `threads` polling threads: the
/// variadic MHD_start_daemon, which Swift can't call, with the options Kura's sync server sets
/// (every limit explicit: connections, per-connection memory, idle timeout).
static inline struct MHD_Daemon *kura_mhd_start(
    const struct sockaddr_in *address, MHD_AccessHandlerCallback handler, void *context,
    MHD_RequestCompletedCallback completed, unsigned int threads, unsigned int connections,
    unsigned int timeout_seconds) {
  return MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handler, context,
      MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
      MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_LIMIT, connections,
      MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(128 * 1024),
      MHD_OPTION_NOTIFY_COMPLETED, completed, context,
      MHD_OPTION_END);
}

/// The port the daemon listens on (the one the system chose for port 0).
static inline uint16_t kura_mhd_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}
