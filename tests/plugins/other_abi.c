/*
 * other_abi.c
 *	A plugin built for another plugin ABI than this wmrun's: a topology
 *	that names it is refused at its line (tests only).
 */
#include <stddef.h>

#include "wmrun/plugin.h"

static const struct wmrun_plugin plugin = {WMRUN_PLUGIN_ABI + 1, NULL, 0, NULL,
					   0};

const struct wmrun_plugin *
wmrun_plugin(void)
{
	return &plugin;
}
