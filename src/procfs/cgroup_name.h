/* What a cgroup path says about the workload in it, read from the names
 * container runtimes and systemd give their cgroups (v1, v2 and hybrid
 * layouts, systemd and cgroupfs drivers):
 *   /system.slice/docker-<id>.scope                       Docker (systemd)
 *   /docker/<id>                                          Docker (cgroupfs)
 *   /kubepods.slice/kubepods-burstable.slice/
 *       kubepods-burstable-pod<uid_with_underscores>.slice/
 *       cri-containerd-<id>.scope | crio-<id>.scope       Kubernetes (systemd)
 *   /kubepods/besteffort/pod<uid>/<id>                    Kubernetes (cgroupfs)
 *   /machine.slice/libpod-<id>.scope, user@N.service/.../libpod-<id>.scope
 *                                                         Podman
 *   /system.slice/nginx.service, /user.slice/user-1000.slice/session-3.scope
 *                                                         systemd units
 * A pod directly under kubepods is Guaranteed. */
#ifndef PERFREPORT_CGROUP_NAME_H
#define PERFREPORT_CGROUP_NAME_H
#include <stdbool.h>
#include <stddef.h>

struct cgroup_workload {
    char runtime[16];   /* "docker", "containerd", "cri-o", "podman", "" */
    char container[65]; /* the container id as named (hex), or "" */
    char pod[37];       /* pod UID, dashed, or "" */
    char qos[12];       /* "guaranteed", "burstable", "besteffort", or "" */
    char unit[96];      /* the innermost systemd unit (service, scope, user slice), or "" */
};

/* Fills w from path; false when the path names nothing we know. */
bool cgroup_workload_of(const char *path, struct cgroup_workload *w);
/* "containerd 9a8b7c6d5e4f in pod 1f2e...0718 (burstable)", "docker
 * 0123456789ab", "pod 1f2e... (guaranteed)", "nginx.service"; "" when w
 * names nothing. */
void cgroup_workload_name(const struct cgroup_workload *w, char *out, size_t n);
/* Whether w is the workload `id` names: a container id (at least 6 hex
 * digits, a prefix of the full id) or a pod UID (dashed or with
 * underscores, full or a prefix of at least 8 characters). */
bool cgroup_workload_matches(const struct cgroup_workload *w, const char *id);

/* -c ARG: a cgroup path that exists in some hierarchy is taken as it is
 * (*path NULL); one that does not is refused (-1, err filled) unless it
 * looks like a container id or pod UID: then the cgroup hierarchies under
 * /sys/fs/cgroup (through hostfs) are searched for the workload it names,
 * at most CGROUP_FIND_MAX_DIRS directories deep-first; *path is then the
 * matching cgroup's path below its hierarchy's root (the shallowest match:
 * a pod UID finds the pod, not one of its containers), to be freed; -1
 * with err filled when it matches no workload or several. */
#define CGROUP_FIND_MAX_DIRS 200000
int cgroup_resolve_arg(const char *arg, char **path, char *err, size_t errlen);
#endif
