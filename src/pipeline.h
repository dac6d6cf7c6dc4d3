#ifndef PERFREPORT_PIPELINE_H
#define PERFREPORT_PIPELINE_H
struct options;
/* probe -> plan -> capture window -> drain -> analyze -> render -> publish.
 * Returns the process exit status (0/1/2 by worst severity, 3 on failure). */
int pipeline_run(const struct options *opt);
#endif
