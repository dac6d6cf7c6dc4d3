/* report.json's "command": the command a run profiled (`perfreport --
 * CMD`), as report_json_read.c reads it back:
 *   {"line": "burner 2", "pid": 123, "user": "bob", "end": "exited",
 *    "exit_status": 3, "signal": null, "core_dumped": false,
 *    "wall_s": 2.01, "ended_window": true, "error": null}
 * "end" is exited|killed|running|not_started; exit_status is set for
 * exited, signal ("SIGINT") for killed, error for not_started. */
#include "report_json.h"
#include "../model/model.h"
#include "../model/run_command.h"

void json_command(struct jw *w, const struct report *r)
{
    const struct run_command *c = r->command;
    if (!c)
        return;
    jw_key(w, "command");
    jw_obj_begin(w);
    jw_kstr(w, "line", c->line);
    jw_knum(w, "pid", c->pid);
    jw_kstr(w, "user", c->user);
    jw_kstr(w, "end", cmd_end_name(c->end));
    if (c->end == CMD_EXITED)
        jw_knum(w, "exit_status", c->exit_status);
    else
        jw_kstr(w, "exit_status", NULL);
    char sig[32];
    cmd_signal_name(c->term_signal, sig, sizeof sig);
    jw_kstr(w, "signal", c->end == CMD_KILLED ? sig : NULL);
    jw_kbool(w, "core_dumped", c->end == CMD_KILLED && c->core_dumped);
    jw_knum(w, "wall_s", c->wall_s);
    jw_kbool(w, "ended_window", c->ended_window);
    jw_kstr(w, "error", c->error);
    jw_obj_end(w);
}
