/* Opening another process's mapped file without trusting its path
 * (src/util/mapfile.c). */
#include "harness.h"
#include "util/mapfile.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A path a user may have swapped: a symlink is not followed, a FIFO (or a
 * device) is never opened -- a FIFO's writer waiting in its open would be
 * released by our open, which the test would see -- and a regular file is. */
TEST(mapfile_open_path_refuses_links_and_special_files)
{
    if (running_on_valgrind()) {
        test_skip("valgrind 3.19 does not model openat2");
        return;
    }
    char dir[] = "/tmp/mapfile-test.XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char reg[256], lnk[256], fifo[256];
    snprintf(reg, sizeof reg, "%s/lib.so", dir);
    snprintf(lnk, sizeof lnk, "%s/link.so", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    int w = open(reg, O_WRONLY | O_CREAT | O_EXCL, 0600);
    REQUIRE(w >= 0);
    CHECK(write(w, "ELF", 3) == 3);
    close(w);
    REQUIRE(symlink(reg, lnk) == 0);
    REQUIRE(mkfifo(fifo, 0600) == 0);

    int fd = mapfile_open_path(reg);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK(mapfile_open_path(lnk) == -1);
    /* a writer opening the FIFO blocks until a reader opens it: had we
     * opened it, even for a moment, the child would have exited */
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int wr = open(fifo, O_WRONLY);
        _exit(wr >= 0 ? 0 : 1);
    }
    usleep(50000); /* the child is in its open */
    CHECK(mapfile_open_path(fifo) == -1);
    usleep(100000);
    int status;
    CHECK(waitpid(child, &status, WNOHANG) == 0); /* still blocked */
    kill(child, SIGKILL);
    waitpid(child, &status, 0);

    unlink(reg);
    unlink(lnk);
    unlink(fifo);
    rmdir(dir);
}

/* Our own mapping of a regular file, through /proc/PID/map_files. */
TEST(mapfile_open_own_mapping)
{
    if (geteuid() != 0) {
        test_skip("map_files needs CAP_SYS_ADMIN");
        return;
    }
    char path[] = "/tmp/mapfile-map.XXXXXX";
    int w = mkstemp(path);
    REQUIRE(w >= 0);
    CHECK(ftruncate(w, 4096) == 0);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, w, 0);
    REQUIRE(p != MAP_FAILED);
    struct stat a, b;
    CHECK(fstat(w, &a) == 0);
    uint64_t start = (uint64_t)(uintptr_t)p;
    int fd = mapfile_open(getpid(), start, start + 4096, NULL);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(fstat(fd, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        close(fd);
    }
    munmap(p, 4096);
    close(w);
    unlink(path);
}
