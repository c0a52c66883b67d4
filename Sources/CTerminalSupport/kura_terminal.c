#include "kura_terminal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define KURA_SEQUENCE_CAPACITY 128

static struct termios saved_attributes;
static volatile sig_atomic_t terminal_fd = -1;
static volatile sig_atomic_t active = 0;
static volatile sig_atomic_t resize_fd = -1;
static char leave_bytes[KURA_SEQUENCE_CAPACITY];
static size_t leave_length = 0;
static int exit_handler_installed = 0;

static const int restoring_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
                                        SIGABRT, SIGBUS,  SIGILL, SIGFPE,  SIGTRAP};
#define RESTORING_SIGNAL_COUNT (sizeof(restoring_signals) / sizeof(restoring_signals[0]))
static struct sigaction previous_actions[RESTORING_SIGNAL_COUNT];
static int handlers_installed = 0;

static void write_all(int fd, const char *bytes, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, bytes, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    bytes += written;
    length -= (size_t)written;
  }
}

void kura_terminal_restore(void) {
  if (!active) return;
  active = 0;
  int saved_errno = errno;
  int fd = terminal_fd;
  if (fd >= 0) {
    write_all(fd, leave_bytes, leave_length);
    tcsetattr(fd, TCSAFLUSH, &saved_attributes);
  }
  errno = saved_errno;
}

int kura_terminal_is_active(void) { return active ? 1 : 0; }

static void restoring_handler(int signal_number) {
  kura_terminal_restore();
  // Put back what was there before (the default action, or the Swift runtime's crash reporter)
  // and deliver the signal again: it is blocked while this handler runs, so it arrives on return.
  for (size_t index = 0; index < RESTORING_SIGNAL_COUNT; index++) {
    if (restoring_signals[index] == signal_number) {
      sigaction(signal_number, &previous_actions[index], NULL);
      break;
    }
  }
  raise(signal_number);
}

static void resize_handler(int signal_number) {
  (void)signal_number;
  int saved_errno = errno;
  int fd = resize_fd;
  if (fd >= 0) {
    char byte = 'W';
    ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

static void restore_at_exit(void) { kura_terminal_restore(); }

int kura_terminal_enter(int fd, const char *enter_sequence, const char *leave_sequence) {
  if (active) return EBUSY;
  size_t length = strlen(leave_sequence);
  if (length >= KURA_SEQUENCE_CAPACITY) return EINVAL;
  struct termios raw;
  if (tcgetattr(fd, &saved_attributes) != 0) return errno;
  raw = saved_attributes;
  raw.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
  raw.c_oflag &= ~(tcflag_t)OPOST;
  raw.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  raw.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
  raw.c_cflag |= CS8;
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;

  memcpy(leave_bytes, leave_sequence, length);
  leave_length = length;
  terminal_fd = fd;

  if (!handlers_installed) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = restoring_handler;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < RESTORING_SIGNAL_COUNT; index++) {
      sigaction(restoring_signals[index], &action, &previous_actions[index]);
      // A signal the parent chose to ignore (as `nohup` does for SIGHUP) stays ignored.
      if (previous_actions[index].sa_handler == SIG_IGN) {
        sigaction(restoring_signals[index], &previous_actions[index], NULL);
      }
    }
    handlers_installed = 1;
  }
  if (!exit_handler_installed) {
    atexit(restore_at_exit);
    exit_handler_installed = 1;
  }
  // A parent may have started us with these signals blocked (posix_spawn from a thread that
  // blocks them keeps the mask): unblock them on this thread so they reach the handlers.
  sigset_t handled;
  sigemptyset(&handled);
  for (size_t index = 0; index < RESTORING_SIGNAL_COUNT; index++) {
    sigaddset(&handled, restoring_signals[index]);
  }
  sigaddset(&handled, SIGWINCH);
  pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
  if (tcsetattr(fd, TCSAFLUSH, &raw) != 0) return errno;
  active = 1;
  write_all(fd, enter_sequence, strlen(enter_sequence));
  return 0;
}

int kura_terminal_watch_resize(int fd) {
  resize_fd = fd;
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = fd >= 0 ? resize_handler : SIG_DFL;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGWINCH, &action, NULL) != 0) return errno;
  return 0;
}

int kura_terminal_size(int fd, int *rows, int *columns) {
  struct winsize size;
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return errno;
  *rows = size.ws_row;
  *columns = size.ws_col;
  return 0;
}
