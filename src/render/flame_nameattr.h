/* --nameattr FILE: extra attributes per function name, flamegraph.pl's
 * format: lines "NAME<TAB>key=value<TAB>key=value...".  Keys:
 *   title    a line added under the frame's tooltip
 *   href     a link on the frame (http, https, ftp, mailto or relative);
 *   target   its target window (default _top)
 *   class id attributes of the frame's <g>
 *   g_extra a_extra  more attributes (name="value" ...) of the <g> or the <a>
 *
 * The file is untrusted: it can never add markup or script.  Values are
 * escaped where they are written; attribute names must be plain names and
 * neither event handlers (on...), namespaces (xmlns...) nor links (href,
 * xlink:...); a link must not start a script (javascript:, data: ...).
 * Refused values are reported and left out; a line that is not NAME<TAB>
 * key=value pairs makes the file invalid. */
#ifndef PERFREPORT_FLAME_NAMEATTR_H
#define PERFREPORT_FLAME_NAMEATTR_H
#include "../util/strmap.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define FLAME_NAMEATTR_MAX_FILE (16u << 20)
#define FLAME_NAMEATTR_MAX_LINE 65536

struct flame_attr {
    char *name, *value; /* value unescaped */
};
struct flame_attrs {
    char *title;  /* NULL: none */
    char *href;   /* NULL: no link */
    char *target; /* NULL: "_top" */
    struct flame_attr *g, *a; /* of the frame's <g>, of its <a> */
    size_t ng, na;
};
struct flame_nameattr {
    struct strmap m; /* function name -> struct flame_attrs * */
    bool any_href;
};

/* Loads path into na (which starts zeroed); refused values are reported on
 * diag ("FILE:LINE: ...").  Returns 0, or -1 after reporting why the file
 * cannot be used. */
int flame_nameattr_load(struct flame_nameattr *na, const char *path, FILE *diag);
const struct flame_attrs *flame_nameattr_get(const struct flame_nameattr *na, const char *name);
void flame_nameattr_free(struct flame_nameattr *na);
#endif
