/* src/procfs/: what the kernel's text files say, parsed and named for the
 * collectors and for the stages beside them, none of them a collector:
 * procs_parse.c (/proc/PID/stat, status, io), cgroup_parse.c (cgroupfs
 * files, /proc/PID/cgroup and mountinfo's cgroup mounts), cgroup_name.c
 * (the workload a cgroup path names: container, pod, service), blockdev.c
 * (below).  Every input is host-controlled text, parsed by size. */
/* Block devices by name: whether a diskstats name is a virtual device, its
 * class (nvme, ssd, hdd...) from /sys/block, and the name of a device
 * number (sysfs uevent, else /proc/partitions); read by the disk, biolat
 * and cgroup collectors. */
#ifndef PERFREPORT_PROCFS_BLOCKDEV_H
#define PERFREPORT_PROCFS_BLOCKDEV_H
#include <stdbool.h>
#include <stddef.h>

/* Device-mapper, loop, ram, zram, md and optical devices: shown only when
 * they did I/O.  Matches "<prefix><digit>" so "mdfoo" or "srv" are not caught. */
bool disk_is_virtual_name(const char *name);

/* "nvme" "ssd" "hdd" "virtio" "network" "unknown".  rotational is the
 * content of queue/rotational (-1 when unreadable); has_device says whether
 * /sys/block/<dev>/device exists (a real backing device, not a stacked one). */
const char *disk_class(const char *name, int rotational, bool has_device);

/* disk_class() for a whole disk named `name`, reading its
 * /sys/block/<dev>/queue/rotational and device through hostfs; "unknown"
 * when it is not a /sys/block entry.  Shared with the BPF biolat collector. */
const char *disk_class_of(const char *name);

/* The /sys/block entry name for a diskstats name: the kernel prints "cciss/c0d0"
 * but names the sysfs directory "cciss!c0d0".  Returns false for names that
 * cannot be a sysfs entry ("", ".", ".."), so they are never looked up. */
bool disk_sysfs_name(const char *name, char *out, size_t n);

/* DEVNAME= of a /sys/dev/block/M:m/uevent text.  0 or -1 when absent. */
int bio_uevent_devname(const char *text, char *out, size_t n);
/* Name of major:minor in a /proc/partitions text.  0 or -1 when absent. */
int bio_partitions_name(const char *text, unsigned major, unsigned minor, char *out, size_t n);
/* The name of block device major:minor ("vda"): sysfs uevent first, then
 * /proc/partitions, else "major:minor".  Host text. */
void bio_dev_name(unsigned major, unsigned minor, char *out, size_t n);
#endif
