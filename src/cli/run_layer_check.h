/* baton run's check of the Vulkan layer it points the loader at: the
 * loader skips a layer whose library cannot be loaded without a word
 * (unless VK_LOADER_DEBUG asks), so a manifest left behind without its
 * library (a package half removed, a container that mounted the manifest
 * but not the library) would leave Vulkan games unpaced in silence. */
#pragma once

/* Where the loader finds implicit layers under an XDG data folder. */
#define LAYER_SUBDIR "vulkan/implicit_layer.d"

/* For each Baton manifest in data_dir/vulkan/implicit_layer.d, one line on
 * stderr when the library it names by path is missing. A library named
 * without a '/' is the dynamic linker's to find, and not checked. */
void run_check_layer_libraries(const char *data_dir);
