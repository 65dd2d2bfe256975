/* The encoder and VRAM in status and the history file (res_json.h). */
#include "daemon/report/res_json.h"

#define MIB (1024.0 * 1024.0)

json_t *res_json_gpu(const struct gpu_res *r)
{
	const char *enc = r->encoder_source ? r->encoder_source : "none";
	const char *vram = r->vram_source ? r->vram_source : "none";
	return json_pack(
	    "{s:o, s:o, s:s, s:o, s:f, s:s}", "encoder_util",
	    r->core.has_encoder ? json_real(r->encoder_util) : json_null(),
	    "decoder_util",
	    r->has_decoder ? json_real(r->decoder_util) : json_null(),
	    "encoder_source", enc, "vram_total_mb",
	    r->core.vram_total ? json_real((double)r->core.vram_total / MIB)
	                       : json_null(),
	    "vram_used_mb", (double)r->core.vram_used / MIB, "vram_source",
	    vram);
}

json_t *res_json_tenant(const struct gpu_res_tenant *r)
{
	return json_pack("{s:f, s:f}", "video_share", r->video_share, "vram_mb",
	                 (double)r->vram_bytes / MIB);
}
