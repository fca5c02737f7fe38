/*
 * safetext.h - text from a results database, made safe to print.
 *
 * A database may come from someone else: its scenario names, command
 * lines, parameter values and error messages are data, and printed raw
 * they could carry terminal escape sequences (move the cursor, rewrite
 * the screen, set the window title). Every byte below 0x20, DEL, the C1
 * controls (U+0080..U+009F) and every byte of invalid UTF-8 is shown as
 * an escape instead: \n, \t, \\ for a backslash, else \xHH. Valid UTF-8
 * text is left as it is.
 */
#ifndef MTCSIM_SAFETEXT_H
#define MTCSIM_SAFETEXT_H

#include <stddef.h>
#include <stdio.h>

/* Writes s (NULL: nothing) escaped to f. */
void safetext_fputs(const char *s, FILE *f);

/* s escaped into buf (cap bytes, always terminated, cut at a whole
 * escape when it does not fit); returns buf. */
char *safetext(const char *s, char *buf, size_t cap);

#endif
