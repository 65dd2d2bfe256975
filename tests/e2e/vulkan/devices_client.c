/* What a Vulkan program sees of the machine's devices: one line of JSON
 * with each physical device's name and deviceUUID (32 hex digits) from
 * vkEnumeratePhysicalDevices, and each group's device count from
 * vkEnumeratePhysicalDeviceGroups, in a 1.1 instance. No window. Exit 0,
 * or 1 when the instance cannot be created. Used by devices_e2e.py. */
#include <stdio.h>
#include <vulkan/vulkan.h>

#define MAX 16

static void uuid_hex(const uint8_t *u, char *out)
{
	for (unsigned i = 0; i < VK_UUID_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", u[i]);
}

int main(void)
{
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ci = {.sType =
	                               VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                           .pApplicationInfo = &app};
	VkInstance inst;
	if (vkCreateInstance(&ci, NULL, &inst) != VK_SUCCESS) {
		fprintf(stderr, "devices_client: vkCreateInstance failed\n");
		return 1;
	}
	VkPhysicalDevice gpus[MAX];
	uint32_t n = 0, room = MAX;
	vkEnumeratePhysicalDevices(inst, &n, NULL);
	VkResult r = vkEnumeratePhysicalDevices(inst, &room, gpus);
	printf("{\"count\":%u,\"result\":%d,\"devices\":[", n, (int)r);
	for (uint32_t i = 0; i < room; i++) {
		VkPhysicalDeviceIDProperties id = {
		    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
		VkPhysicalDeviceProperties2 p = {
		    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		    .pNext = &id};
		vkGetPhysicalDeviceProperties2(gpus[i], &p);
		char hex[2 * VK_UUID_SIZE + 1];
		uuid_hex(id.deviceUUID, hex);
		printf("%s{\"name\":\"%s\",\"uuid\":\"%s\"}", i ? "," : "",
		       p.properties.deviceName, hex);
	}
	VkPhysicalDeviceGroupProperties groups[MAX];
	uint32_t ng = MAX;
	for (uint32_t i = 0; i < MAX; i++)
		groups[i] = (VkPhysicalDeviceGroupProperties){
		    .sType =
		        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES};
	r = vkEnumeratePhysicalDeviceGroups(inst, &ng, groups);
	printf("],\"group_result\":%d,\"groups\":[", (int)r);
	for (uint32_t i = 0; i < ng; i++)
		printf("%s%u", i ? "," : "", groups[i].physicalDeviceCount);
	printf("]}\n");
	vkDestroyInstance(inst, NULL);
	return 0;
}
