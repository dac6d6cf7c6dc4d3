/* Signals whose default is to end the process, ignored while output is
 * being written (after a capture window, in render and diff): an
 * interrupt must not leave a half-written bundle behind. */
#ifndef PERFREPORT_SIGNALS_H
#define PERFREPORT_SIGNALS_H
void ignore_fatal_signals(void);
#endif
