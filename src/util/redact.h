/* Command-line redaction: secrets people pass on command lines must not end
 * up in a bundle that gets attached to tickets.  Applied by collectors to the
 * raw argv (NUL-separated, as /proc/PID/cmdline) before the text enters the
 * model, so no output format can leak it.
 *
 * Working on argv rather than on the space-joined line matters: argument
 * boundaries tell where a value ends ("--password=my secret" is one
 * argument, "Authorization: Bearer tok" too), and the replacement may be
 * longer than a one-character value.
 *
 * Rules.  A NAME is sensitive when it contains, case-insensitively, one of
 * "pass" "token" "secret" "key" "auth" "credential".  Only names trigger,
 * never values: "--layout keyboard" stays, but "--keyfile /k" and
 * "--author bob" are redacted (over-redacting a harmless value is the safe
 * side).  Each argument is also split at whitespace into words, because
 * argv[2] of `sh -c "..."` or a process that rewrote its title
 * ("postgres: ...") holds a whole command in one argument.
 *   1. NAME=VALUE, optionally with - or -- before NAME (--password=x,
 *      PGPASSWORD=x, api_key=x, -Djavax.net.ssl.keyStorePassword=x): the
 *      value goes.  NAME ends at the first '=' (values may contain '=');
 *      the value is the rest of the argument when the word starts the
 *      argument (shells strip the quotes of "--password=a b"), else up to the next
 *      whitespace (a quoted value, 'a b' or "a b", up to its closing quote).
 *      The same inside a word after '?', '&' or ';' (URL query strings,
 *      form data), where the value ends at '&', '#', ';' or whitespace.
 *   2. -NAME VALUE / --NAME VALUE (--password x, --auth-token x,
 *      -passin x): the next word, or the next argument when the option ends
 *      its argument, unless it starts with '-' (then it is taken for the
 *      next option: a value starting with '-' passed this way is not seen).
 *   3. Headers: a word "NAME:" or "NAME:VALUE" where NAME is sensitive or is
 *      "cookie"/"set-cookie" (-H "Authorization: Bearer x", "X-Api-Key: x",
 *      openssl's "pass:x"): the rest of the argument after the colon
 *      becomes " ***" ("Authorization: ***"), or the next argument when
 *      nothing follows the colon.  "NAME://" (a URL scheme) is not a header.
 *   4. URL userinfo: in scheme://USER:PW@host the USER:PW part becomes
 *      *** (the user name goes too: tokens are often passed as the user).
 *   5. MySQL clients (argv[0] basename mysql, mysqldump, mysqladmin,
 *      mysqlimport, mysqlshow, mysqlcheck, mysqlpump, mariadb*): -pSECRET.
 *      A bare -p elsewhere (mkdir -p, -p 8080) is not a password.
 * Each replaced value counts once, overlapping hits (a URL inside a
 * redacted value) once in all. */
#ifndef PERFREPORT_REDACT_H
#define PERFREPORT_REDACT_H
#include "strbuf.h"
#include <stddef.h>

/* What replaces a value: plain ASCII that every escaper keeps readable and
 * that no real output of ours produces. */
#define REDACTED "***"

/* in: len bytes of NUL-separated arguments (trailing NULs allowed).
 * out (reset first): the same arguments with sensitive values replaced by
 * REDACTED, NUL-separated, with the input's trailing NUL kept.
 * Returns how many values were replaced. */
size_t redact_argv(const char *in, size_t len, struct strbuf *out);

/* True when NAME (n bytes) is sensitive as defined above. */
int redact_name_sensitive(const char *name, size_t n);
#endif
