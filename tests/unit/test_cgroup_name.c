/* Workload names from cgroup paths, for each runtime's documented layout,
 * and -c by container id or pod UID. */
#include "harness.h"
#include "../../src/procfs/cgroup_name.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b"
#define UID "1f2e3d4c-5b6a-4978-8a1b-2c3d4e5f6071"
#define UID_ "1f2e3d4c_5b6a_4978_8a1b_2c3d4e5f6071"

static const char *name_of(const char *path, char *buf, size_t n)
{
    struct cgroup_workload w;
    if (!cgroup_workload_of(path, &w))
        return "";
    cgroup_workload_name(&w, buf, n);
    return buf;
}

TEST(cgroup_names_per_runtime_layout)
{
    char b[256];
    /* Docker: systemd driver and cgroupfs driver */
    CHECK_STR(name_of("/system.slice/docker-" ID ".scope", b, sizeof b), "docker 9a8b7c6d5e4f");
    CHECK_STR(name_of("/docker/" ID, b, sizeof b), "docker 9a8b7c6d5e4f");
    /* Kubernetes with containerd, systemd driver, each QoS class */
    CHECK_STR(name_of("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
                      ".slice/cri-containerd-" ID ".scope", b, sizeof b),
              "containerd 9a8b7c6d5e4f in pod " UID " (burstable)");
    CHECK_STR(name_of("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
                      ".slice", b, sizeof b),
              "pod " UID " (besteffort)");
    CHECK_STR(name_of("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID ".scope",
                      b, sizeof b),
              "containerd 9a8b7c6d5e4f in pod " UID " (guaranteed)");
    /* CRI-O, and its conmon */
    CHECK_STR(name_of("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
                      ".slice/crio-" ID ".scope", b, sizeof b),
              "cri-o 9a8b7c6d5e4f in pod " UID " (burstable)");
    CHECK_STR(name_of("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
                      ".slice/crio-conmon-" ID ".scope", b, sizeof b),
              "cri-o 9a8b7c6d5e4f in pod " UID " (burstable)");
    /* Kubernetes, cgroupfs driver (v1 and v2 alike) */
    CHECK_STR(name_of("/kubepods/besteffort/pod" UID "/" ID, b, sizeof b),
              "container 9a8b7c6d5e4f in pod " UID " (besteffort)");
    CHECK_STR(name_of("/kubepods/pod" UID "/" ID, b, sizeof b),
              "container 9a8b7c6d5e4f in pod " UID " (guaranteed)");
    /* Podman, rootful and rootless */
    CHECK_STR(name_of("/machine.slice/libpod-" ID ".scope", b, sizeof b), "podman 9a8b7c6d5e4f");
    CHECK_STR(name_of("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID
                      ".scope/container", b, sizeof b),
              "podman 9a8b7c6d5e4f");
    /* systemd units */
    CHECK_STR(name_of("/system.slice/nginx.service", b, sizeof b), "nginx.service");
    CHECK_STR(name_of("/user.slice/user-1000.slice/session-3.scope", b, sizeof b), "session-3.scope");
    CHECK_STR(name_of("/user.slice/user-1000.slice", b, sizeof b), "user-1000.slice");
    /* nothing known: no name, and lookalikes are not taken */
    CHECK_STR(name_of("/", b, sizeof b), "");
    CHECK_STR(name_of("/batch-job", b, sizeof b), "");
    CHECK_STR(name_of("/docker/not-an-id", b, sizeof b), "");
    CHECK_STR(name_of("/kubepods/podnot-a-uid/x", b, sizeof b), "");
    /* too short for a container id: a scope like any other */
    CHECK_STR(name_of("/system.slice/docker-12.scope", b, sizeof b), "docker-12.scope");
}

TEST(cgroup_workload_matches_ids)
{
    struct cgroup_workload w;
    REQUIRE(cgroup_workload_of("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
                               ".slice/cri-containerd-" ID ".scope", &w));
    CHECK(cgroup_workload_matches(&w, "9a8b7c"));
    CHECK(cgroup_workload_matches(&w, ID));
    CHECK(!cgroup_workload_matches(&w, "9a8b7")); /* too short to name one */
    CHECK(!cgroup_workload_matches(&w, "9a8b7d"));
    CHECK(cgroup_workload_matches(&w, UID));
    CHECK(cgroup_workload_matches(&w, UID_));
    CHECK(cgroup_workload_matches(&w, "1f2e3d4c-5b6a"));
    CHECK(!cgroup_workload_matches(&w, "1f2e3d4c-5b6b"));
}

static void mkdirs(const char *root, const char *rel)
{
    char *cmd = xasprintf("mkdir -p '%s%s'", root, rel);
    if (system(cmd) != 0)
        test_fail(__FILE__, __LINE__, "mkdir %s%s", root, rel);
    free(cmd);
}

/* -c by id: a tree with two pods; a container id or pod UID finds its
 * cgroup, a path that exists is kept, an id of two workloads and a path
 * of nothing are refused. */
TEST(cgroup_resolve_arg_by_container_or_pod)
{
    char root[] = "/tmp/perfreport-cgname-XXXXXX";
    REQUIRE(mkdtemp(root));
    const char *pod = "/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/"
                      "kubepods-burstable-pod" UID_ ".slice";
    char rel[1024];
    snprintf(rel, sizeof rel, "%s/cri-containerd-%s.scope", pod, ID);
    mkdirs(root, rel);
    snprintf(rel, sizeof rel, "%s/cri-containerd-9a8b7c000000000000000000000000000000000000000000000000000000ffff.scope", pod);
    mkdirs(root, rel);
    mkdirs(root, "/sys/fs/cgroup/system.slice/docker-abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789.scope");
    mkdirs(root, "/sys/fs/cgroup/deadbeef");
    mkdirs(root, "/sys/fs/cgroup/batch");
    mkdirs(root, "/sys/fs/cgroup/blkio/io-limited"); /* only in a v1 hierarchy */
    char *procs = xasprintf("%s/sys/fs/cgroup/cgroup.procs", root);
    FILE *pf = fopen(procs, "w");
    REQUIRE(pf);
    fclose(pf);
    free(procs);
    hostfs_set_root(root);

    char *path = NULL, err[512] = "";
    CHECK(cgroup_resolve_arg("9a8b7c6d5e4f", &path, err, sizeof err) == 0);
    REQUIRE(path);
    CHECK_STR(path, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
                    ".slice/cri-containerd-" ID ".scope");
    free(path);
    /* the pod UID finds the pod, not one of its containers */
    CHECK(cgroup_resolve_arg(UID, &path, err, sizeof err) == 0);
    REQUIRE(path);
    CHECK_STR(path, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice");
    free(path);
    CHECK(cgroup_resolve_arg("abcdef01", &path, err, sizeof err) == 0);
    REQUIRE(path);
    CHECK_CONTAINS(path, "/system.slice/docker-abcdef");
    free(path);
    /* two containers start 9a8b7c: refused, naming both */
    CHECK(cgroup_resolve_arg("9a8b7c", &path, err, sizeof err) == -1);
    CHECK(path == NULL);
    CHECK_CONTAINS(err, "more than one workload");
    /* an existing cgroup named like an id is a path; paths stay paths */
    CHECK(cgroup_resolve_arg("deadbeef", &path, err, sizeof err) == 0 && path == NULL);
    CHECK(cgroup_resolve_arg("/batch", &path, err, sizeof err) == 0 && path == NULL);
    CHECK(cgroup_resolve_arg("batch", &path, err, sizeof err) == 0 && path == NULL);
    CHECK(cgroup_resolve_arg("/io-limited", &path, err, sizeof err) == 0 && path == NULL);
    /* a path of nothing is refused at once, not after the window */
    CHECK(cgroup_resolve_arg("/nonexistent", &path, err, sizeof err) == -1 && path == NULL);
    CHECK_CONTAINS(err, "-c /nonexistent: no such cgroup");
    CHECK(cgroup_resolve_arg("batch-job", &path, err, sizeof err) == -1 && path == NULL);
    /* an id of nothing */
    CHECK(cgroup_resolve_arg("0123456789", &path, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "no container or pod with that id");
    hostfs_set_root(NULL);
    char *cmd = xasprintf("rm -rf '%s'", root);
    if (system(cmd) != 0)
        test_fail(__FILE__, __LINE__, "rm %s", root);
    free(cmd);
}
