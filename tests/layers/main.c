// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the program every layering check links: a folder's archive is
 * linked whole around it, against the archives below that folder alone, so
 * that any call up a floor is an undefined symbol (mk/10-userspace.mk).
 */
int main(void)
{
	return 0;
}
