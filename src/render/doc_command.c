/* The command a run profiled, as one paragraph under the report's context
 * line (see doc_report.h). */
#include "doc_report.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/run_command.h"
#include <string.h>
#include <math.h>
#include <stdio.h>

#define MAX_COMMAND_TEXT 600 /* characters of the command line shown */

void doc_command(const struct report *r, cmark_node *parent)
{
    const struct run_command *c = r->command;
    if (!c)
        return;
    cmark_node *p = doc_para(parent);
    doc_strong(p, "Command:");
    doc_text(p, " ");
    doc_host(p, c->line, MAX_COMMAND_TEXT);
    doc_textf(p, " (pid %d", c->pid);
    if (c->user) {
        doc_text(p, ", as user ");
        doc_host(p, c->user, 64);
    }
    doc_text(p, ") ");
    char sig[32];
    switch (c->end) {
    case CMD_EXITED:
        doc_textf(p, "exited with status %d", c->exit_status);
        break;
    case CMD_KILLED:
        cmd_signal_name(c->term_signal, sig, sizeof sig);
        doc_textf(p, "was killed by %s%s", sig, c->core_dumped ? " (core dumped)" : "");
        break;
    case CMD_NOT_STARTED:
        doc_text(p, "could not be started: ");
        doc_host(p, c->error, 200);
        break;
    case CMD_RUNNING:
        doc_text(p, "was still running when the window ended and was left running");
        break;
    }
    if (c->end != CMD_NOT_STARTED && isfinite(c->wall_s))
        doc_textf(p, c->end == CMD_RUNNING ? " (%.1f s in)" : " after %.1f s", c->wall_s);
    doc_text(p, c->ended_window ? "; the window ended when it did." : ".");
    /* its tree's CPU, from where its time went (analysis: target.time) */
    const struct table *t = report_find_table(r, NM_TARGET_TIME);
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *state = table_str(t, i, "state");
        double s = table_num(t, i, "thread_s"), win = report_window_s(r);
        if (!state || strcmp(state, "cpu") != 0 || !isfinite(s))
            continue;
        doc_textf(p, " Its processes ran %.2f s on a CPU", s);
        if (win > 0)
            doc_textf(p, " (%.0f%% of one CPU over the window)", s / win * 100);
        doc_text(p, "; the table \"Where the target's time went\" splits the rest by what "
                    "they waited for.");
    }
}
