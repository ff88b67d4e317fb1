#ifndef MITMSIM_CNCURSES_SHIM_H
#define MITMSIM_CNCURSES_SHIM_H

/* The wide API (add_wch, get_wch); set here because SwiftPM drops pkg-config's -D flags. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <curses.h>

/* Globals and function-like macros the Swift importer cannot use directly. */
static inline WINDOW *CNcurses_stdscr(void) { return stdscr; }
static inline int CNcurses_COLOR_PAIR(int n) { return (int)COLOR_PAIR(n); }
static inline int CNcurses_A_BOLD(void) { return (int)A_BOLD; }
static inline int CNcurses_A_REVERSE(void) { return (int)A_REVERSE; }
static inline int CNcurses_A_DIM(void) { return (int)A_DIM; }
static inline int CNcurses_A_UNDERLINE(void) { return (int)A_UNDERLINE; }
static inline void CNcurses_getmaxyx(WINDOW *w, int *y, int *x) { getmaxyx(w, *y, *x); }

#endif
