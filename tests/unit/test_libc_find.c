/* Finding the C library a process maps (src/kbpf/libc_find.c): which
 * lines of /proc/PID/maps are one, and a real process's, including one
 * replaced on disk after it was mapped. */
#include "harness.h"
#include "../../src/kbpf/libc_find.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool libc_line(const char *line, struct libc_map *m)
{
    return libc_map_parse(line, strlen(line), m);
}

TEST(libc_map_parse_finds_c_libraries)
{
    struct libc_map m;
    CHECK(libc_line("7f1c2a400000-7f1c2a426000 r--p 00000000 fd:01 1310822    "
                    "/usr/lib/x86_64-linux-gnu/libc.so.6", &m));
    CHECK(m.start == 0x7f1c2a400000ull && m.end == 0x7f1c2a426000ull);
    CHECK(m.inode == 1310822);
    CHECK_STR(m.dev, "fd:01");
    CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    /* replaced by an upgrade: still the mapped libc, without the suffix */
    CHECK(libc_line("7f00-7f10 r-xp 00001000 08:02 77 /lib/x86_64-linux-gnu/libc.so.6 (deleted)",
                    &m));
    CHECK_STR(m.path, "/lib/x86_64-linux-gnu/libc.so.6");
    CHECK(libc_line("1000-2000 r-xp 00000000 00:2a 5 /lib/x86_64-linux-gnu/libc-2.31.so", &m));
    CHECK(libc_line("1000-2000 r-xp 00000000 00:2a 5 /lib/ld-musl-x86_64.so.1", &m));
    /* not the C library */
    CHECK(!libc_line("1000-2000 r-xp 00000000 fd:01 9 /usr/lib/x86_64-linux-gnu/libcap.so.2", &m));
    CHECK(!libc_line("1000-2000 r-xp 00000000 fd:01 9 /usr/lib/libc.so.6.bak", &m));
    CHECK(!libc_line("1000-2000 r-xp 00000000 fd:01 9 /opt/x/libc-tools.so.1", &m));
    CHECK(!libc_line("1000-2000 rw-p 00000000 00:00 0 [heap]", &m));
    CHECK(!libc_line("1000-2000 rw-p 00000000 00:00 0 ", &m));
    CHECK(!libc_line("1000-2000 r-xp 00000000 fd:01 0 /lib/libc.so.6", &m)); /* no inode */
    CHECK(!libc_line("garbage", &m));
    CHECK(!libc_line("", &m));
    /* a path longer than we keep is refused, not cut */
    char longl[700];
    int k = snprintf(longl, sizeof longl, "1000-2000 r-xp 00000000 fd:01 9 /");
    memset(longl + k, 'a', 400);
    snprintf(longl + k + 400, sizeof longl - (size_t)k - 400, "/libc.so.6");
    CHECK(!libc_line(longl, &m));
    /* only the given length counts, not what follows */
    const char *two = "1000-2000 r-xp 00000000 fd:01 9 /lib/libc.so.6X\n";
    CHECK(!libc_map_parse(two, strlen(two) - 1, &m));
    CHECK(libc_map_parse(two, strlen(two) - 2, &m));
}

/* This process: its own glibc is found and opened (the very mapped file);
 * a file named libc.so.6 it maps and that was then replaced on disk is
 * found without " (deleted)" and opened as the mapped file, not the new one
 * at its path; a mapping whose inode is not the file's is refused. */
TEST(libc_scan_own_process)
{
    if (geteuid() != 0) {
        test_skip("map_files needs CAP_SYS_ADMIN");
        return;
    }
    char dir[] = "/tmp/libc-find.XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char lib[300], other[300];
    snprintf(lib, sizeof lib, "%s/libc.so.6", dir);
    snprintf(other, sizeof other, "%s/new", dir);
    int w = open(lib, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    REQUIRE(w >= 0);
    CHECK(ftruncate(w, 4096) == 0);
    struct stat mapped;
    CHECK(fstat(w, &mapped) == 0);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, w, 0);
    REQUIRE(p != MAP_FAILED);
    close(w);
    int o = open(other, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    CHECK(o >= 0 && write(o, "x", 1) == 1);
    if (o >= 0)
        close(o);
    CHECK(rename(other, lib) == 0); /* an upgrade: the path now names another file */

    struct libc_scan sc;
    REQUIRE(libc_scan_open(&sc, getpid(), 4u << 20) == 0);
    struct libc_map m;
    int own = 0, planted = 0;
    while (libc_scan_next(&sc, &m)) {
        CHECK(!libc_scan_remote(&sc, &m));
        int fd = libc_open_mapped(getpid(), &m);
        struct stat st;
        CHECK(fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_ino == m.inode);
        if (strcmp(m.path, lib) == 0) {
            planted++;
            CHECK(fd >= 0 && st.st_ino == mapped.st_ino && st.st_size == 4096);
            struct libc_map bad = m;
            bad.inode = m.inode + 1;
            errno = 0;
            CHECK(libc_open_mapped(getpid(), &bad) == -1 && errno == ESTALE);
        } else if (strstr(m.path, "/libc.so.6") || strstr(m.path, "/libc-")) {
            own++;
        }
        if (fd >= 0)
            close(fd);
    }
    libc_scan_close(&sc);
    CHECK(planted >= 1);
    CHECK(own >= 1);
    /* a process that does not exist: an error, nothing to close */
    CHECK(libc_scan_open(&sc, 0x3fffffff, 4u << 20) < 0);
    munmap(p, 4096);
    unlink(lib);
    rmdir(dir);
}
