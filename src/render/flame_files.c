/* Renderer "flames": for every stack profile in the model, <name>.folded
 * (folded_write) and a standalone interactive <name>.svg. */
#include "charts.h"
#include "../codec/profile_time_text.h"
#include "../flame/folded.h"
#include "renderer.h"
#include "svg_flame.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../util/strbuf.h"
#include <stdio.h>
#include <string.h>

void flame_filename(const struct profile *p, const char *ext, char *out, size_t n)
{
    int w = snprintf(out, n, "%s.%s", p->name ? p->name : "profile", ext);
    if (w < 0 || n == 0)
        return;
    size_t stem = strlen(p->name ? p->name : "profile");
    for (size_t i = 0; i < stem && out[i]; i++) {
        char c = out[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            out[i] = '_';
    }
}

void flame_opts_for(const struct profile *p, struct flame_opts *o)
{
    flame_opts_default(o);
    o->title = p->title && *p->title ? p->title : p->name;
    o->legend = true; /* readers of a bundle may never have seen a flame graph */
    o->report = true; /* runs of unnamed frames folded, height to the visible depth, units */
    /* Off-CPU time is blocked time: flamegraph.pl's "io" palette by convention. */
    if (p->name && strncmp(p->name, "offcpu", 6) == 0)
        o->colors = "io";
}

static int render_flames(const struct report *r, const struct out_sink *out)
{
    int first_err = 0;
    for (size_t i = 0; i < r->nprofiles; i++) {
        const struct profile *p = r->profiles[i];
        char name[512];
        struct strbuf sb = STRBUF_INIT;
        folded_write(p, &sb);
        flame_filename(p, "folded", name, sizeof name);
        int rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
        if (rc && !first_err)
            first_err = rc;
        sb_reset(&sb);
        if (p->time) { /* the stacks per second, by cpu.folded's lines */
            profile_time_write(p, &sb);
            flame_filename(p, "time", name, sizeof name);
            rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
            if (rc && !first_err)
                first_err = rc;
            sb_reset(&sb);
        }
        struct flame_opts o;
        flame_opts_for(p, &o);
        svg_flame_render(p, &o, true, NULL, &sb);
        flame_filename(p, "svg", name, sizeof name);
        rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
        if (rc && !first_err)
            first_err = rc;
        sb_free(&sb);
    }
    return first_err;
}

const struct renderer renderer_flames = {"flames", render_flames};
