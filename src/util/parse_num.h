/* Strict number parsing for command-line options: the whole argument must
 * be a number inside [min, max]; otherwise a message naming the option goes
 * to stderr and -1 is returned. */
#ifndef PERFREPORT_PARSE_NUM_H
#define PERFREPORT_PARSE_NUM_H

/* `what` names the unit in the message ("a number of seconds", "a number"). */
int parse_double_arg(const char *opt, const char *s, double min, double max, const char *what,
                     double *out);
int parse_long_arg(const char *opt, const char *s, long min, long max, long *out);
#endif
