#ifndef PERFREPORT_CLOCK_H
#define PERFREPORT_CLOCK_H
/* CLOCK_MONOTONIC in milliseconds. */
double mono_ms(void);
#endif
