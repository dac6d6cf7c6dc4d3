/* --obfuscate: a bundle that can leave the company.  Host names, IPv4 and
 * IPv6 addresses, MAC addresses and user names are replaced consistently
 * (the same real value always becomes the same placeholder) in every string
 * the model owns, after analysis and before rendering, so every file of the
 * bundle and every file name derived from the model (the default bundle
 * directory name included) sees only placeholders.
 *
 * Placeholders: host1.. for host names, user1.. for user names, mac1.. for
 * MACs; addresses stay addresses so "ip:port" still reads as one:
 * IPv4 -> 240.0.x.y (240.0.0.0/4 is reserved: never a real host), IPv6 ->
 * 2001:db8::N (the documentation prefix).  Not replaced, because they
 * identify nothing: 0.0.0.0, 127.0.0.0/8, 255.255.255.255, ::, ::1,
 * ::ffff:127.x.x.x, and the all-zero and broadcast MACs.
 *
 * What counts as a name:
 *  - host names: the model's "hostname" fact, its first label when it is a
 *    FQDN, /etc/hostname and the names in /etc/hosts (except localhost and
 *    the ip6-* names), all read through hostfs; matched case-insensitively
 *    (DNS names are);
 *  - the names processes looked up (the dns.names table), whole;
 *  - user names: /etc/passwd entries with uid >= 1000 except nobody
 *    (65534); system accounts (root, daemon, postgres) identify a service,
 *    not a person, and stay; matched case-sensitively;
 *  - names shorter than 2 characters are ignored.
 * Names match where no letter or digit goes on around them, the longest
 * registered name first; for host names also not where a '.' continues a
 * dotted name.  A name of 4 characters or more is replaced inside an
 * identifier too, glued to it by '_' or '-' ("user_cloudsdk",
 * "cloudsdk-10.0.0.2", a JIT symbol "runsc_rpc" -> "host1_rpc"); a shorter
 * one only on its own (host "vm" leaves "vm_area", "kvm-clock" and "vm-2"
 * alone, and "vmstat", "vm.swappiness", "vm.example.com": list the FQDN in
 * /etc/hosts to have it replaced).  User names are case-sensitive
 * ("CLOUDSDK_CONFIG" stays), host names are not.
 * Addresses are found wherever they stand, glued to letters or '_' too
 * ("connect_192.0.2.2", "eth0_02:fc:..."); only a character that would
 * continue them hides one:
 *  - IPv4: four decimal octets <= 255, no digit or '.' before, no digit or
 *    ".digit" after;
 *  - IPv6: any RFC 4291 text form (inet_pton), "::" and an embedded IPv4
 *    included, no hex digit, ':' or '.' before; compared by value so
 *    "2001:DB8:0::1" and "2001:db8::1" share a placeholder.  Glued to a word
 *    it needs 3+ groups, or 2 with a decimal digit ("ip_fe80::1"), so C++
 *    names ("std::vector", "Foo::bar") stay;
 *  - MAC: six pairs of hex digits separated by one kind of ':' or '-', no
 *    ':' before, no hex digit or separator after; or Cisco's three groups
 *    of four ("02fc.0000.0001"), with no letter, digit or '.' before and no
 *    hex digit or ".hex" after.
 * Cut addresses (a comm is cut to 15 bytes: "connect_192.0.2.2" runs as
 * "connect_192.0.2"): a run of 2 or 3 dotted decimal groups, maybe ending
 * in '.', is replaced when
 *  - it begins an address seen in full anywhere in the report, at a group
 *    boundary (or anywhere at a cut point): it gets the same groups of that
 *    address's placeholder ("240.0.0"); obfuscate_report registers every
 *    full address first so the order of strings does not matter;
 *  - or it is at a cut point: it ends a word (back to a blank, quote,
 *    bracket, '/', '=' or ',') of exactly 15 bytes, or it ends in '.' glued
 *    to a name and nothing of a name follows ("cloudsdk-192.0.", not
 *    "ld-2.36.so"); then it gets an ipv4-prefix placeholder
 *    of its own (240.N., 240.N.M).
 * "at 96.4." or "version 1.2.3" elsewhere stay. */
#ifndef PERFREPORT_OBFUSCATE_H
#define PERFREPORT_OBFUSCATE_H
#include "../util/strbuf.h"
#include <stddef.h>

struct report;
struct obf;

/* Owned by the caller; obf_free() releases it. */
struct obf *obf_new(void);
void obf_free(struct obf *o);

/* Literal names to replace (copied).  Placeholders are numbered in order of
 * first use, so the map lists only names that occurred. */
void obf_add_host(struct obf *o, const char *name);
void obf_add_user(struct obf *o, const char *name);

/* Registers the host names and user names described above, from the report
 * (hostname fact, looked-up names) and /etc/{hostname,hosts,passwd} through hostfs.  Missing
 * files are not an error. */
void obf_load_host(struct obf *o, const struct report *r);

/* Pure parsers, exposed for tests: names listed in /etc/hosts text and user
 * names (uid >= 1000, not 65534) in /etc/passwd text. */
void obf_parse_hosts(struct obf *o, const char *text, size_t len);
void obf_parse_passwd(struct obf *o, const char *text, size_t len);

/* A new string with every match replaced, or NULL when nothing matched. */
char *obf_text(struct obf *o, const char *s);

/* Rewrites every string the report owns; returns how many strings changed. */
size_t obfuscate_report(struct obf *o, struct report *r);

/* The mapping, one "placeholder<TAB>real<TAB>kind" line per value used,
 * after a comment line; control bytes and '\' in real values as \xNN. */
void obf_map_text(const struct obf *o, struct strbuf *out);

/* Writes the map to "<name>.obfuscation-map" in the directory dir_fd (the
 * bundle's parent, held open since the bundle was published there: no path
 * is looked up again) with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600.  path_out
 * gets "<shown>.obfuscation-map" (trailing '/' of shown ignored), the path
 * to tell the user.  Returns 0 or -errno with a message in err. */
int obf_write_map(const struct obf *o, int dir_fd, const char *name, const char *shown,
                  char *path_out, size_t pn, char *err, size_t en);
#endif
