/* dJay's Warning / Critical rule (§6.2; Baton's
 * readings of what the paper leaves open):
 *  - counters count consecutive epochs of the epoch-averaged total, the
 *    measured one if the caller has it, else the estimate;
 *  - Warning: total in (B, ratio B] for warn_epochs epochs in a row
 *    (default 201: "more than 200");
 *  - Critical: total above ratio B for critical_epochs in a row (1
 *    reproduces Fig. 13's reaction within an epoch; 2 is the text's "more
 *    than one epoch");
 *  - an epoch above ratio B neither counts towards nor breaks a Warning
 *    run (it is worse, not better); one in the band breaks a Critical run;
 *  - both reset whenever total <= B and when either fires (the caller
 *    then runs a full reassignment). */
#include "core/quality_opt.h"

enum quality_alarm_verdict quality_alarm_step(struct quality_alarm *a,
                                              const struct quality_params *p,
                                              double estimated_total,
                                              const double *measured_total)
{
	double total = measured_total ? *measured_total : estimated_total;
	if (quality_fits(p, total)) {
		*a = (struct quality_alarm){0};
		return QUALITY_ALARM_NONE;
	}
	enum quality_alarm_verdict v = QUALITY_ALARM_NONE;
	if (total > p->critical_ratio * p->budget) {
		if (++a->critical_count >= p->critical_epochs)
			v = QUALITY_ALARM_CRITICAL;
	} else {
		a->critical_count = 0;
		if (++a->warn_count >= p->warn_epochs)
			v = QUALITY_ALARM_WARNING;
	}
	if (v != QUALITY_ALARM_NONE)
		*a = (struct quality_alarm){0};
	return v;
}
