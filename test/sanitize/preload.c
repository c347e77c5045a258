/*
 * preload.c: preloaded after the AddressSanitizer runtime when the stock
 * postgres binary runs sanitized code (make fuzz, make sanitize).
 *
 * A preloaded ASan runtime initializes itself at the first malloc. In the
 * postgres binary that first malloc comes from a library constructor
 * (libgpg-error's) inside bindtextdomain(), which holds glibc's gettext lock;
 * ASan's start-up calls dlerror(), which takes and releases that same lock,
 * and the process then hangs in its next bindtextdomain(). Interposing
 * bindtextdomain() lets ASan start before the lock is taken.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

char *bindtextdomain(const char *domain, const char *dir);

char *
bindtextdomain(const char *domain, const char *dir)
{
	static char *(*real)(const char *, const char *);

	if (real == NULL)
	{
		free(malloc(1)); /* ASan starts here, no lock held */
		real = (char *(*) (const char *, const char *) ) dlsym(
			RTLD_NEXT, "bindtextdomain");
	}
	return real(domain, dir);
}
