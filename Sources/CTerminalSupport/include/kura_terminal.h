#ifndef KURA_TERMINAL_H
#define KURA_TERMINAL_H

// Terminal state that must be restorable from a signal handler: the saved termios, the bytes that
// leave the alternate screen, and the wake-up pipe written on SIGWINCH. Only async-signal-safe
// calls (tcsetattr, write, sigaction, raise) run inside the handlers.

/// Saves the terminal attributes of `fd`, switches it to raw mode, writes `enter_sequence`, and
/// installs handlers that restore the terminal on SIGINT, SIGTERM, SIGHUP, SIGQUIT and the crash
/// signals (SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP) before re-raising the signal with
/// its previous disposition; also restores at exit(). Returns 0, or an errno value.
int kura_terminal_enter(int fd, const char *enter_sequence, const char *leave_sequence);

/// Writes the leave sequence and restores the saved attributes if the terminal is in raw mode.
/// Safe to call more than once and from a signal handler.
void kura_terminal_restore(void);

/// Whether the terminal is currently in raw mode (entered and not restored).
int kura_terminal_is_active(void);

/// Writes one byte `W` to `fd` on every SIGWINCH (pass -1 to stop). Returns 0, or an errno value.
int kura_terminal_watch_resize(int fd);

/// Reads the window size of `fd`. Returns 0, or an errno value.
int kura_terminal_size(int fd, int *rows, int *columns);

#endif
