/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.h - `upcc files`: cached files and their resident pages, like
 * fincore.
 *
 * Exit codes: 0 done; 1 the path could not be read; 2 bad usage.
 */
#ifndef UPCC_FILES_H
#define UPCC_FILES_H

/* argv[0] is the command name ("files"). */
int upcc_files_main(int argc, char **argv);

#endif /* UPCC_FILES_H */
