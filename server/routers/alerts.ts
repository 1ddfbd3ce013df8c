import {
  acknowledgeAlert,
  acknowledgeInput,
  alertCounts,
  alertListInput,
  createSilence,
  deliveryListInput,
  endSilence,
  endSilenceInput,
  listAlerts,
  listDeliveries,
  listSilences,
  silenceInput,
  silenceListInput,
} from '@/server/alerts/service';
import { actorOf } from '@/server/auth/identity';
import { operatorProcedure, router, viewerProcedure } from '@/server/trpc';

/** Alerts (docs/monitoring.md): read by anyone signed in; acknowledged and silenced by operators. */
export const alertsRouter = router({
  list: viewerProcedure.input(alertListInput).query(({ ctx, input }) => listAlerts(ctx.db, input)),
  counts: viewerProcedure.query(({ ctx }) => alertCounts(ctx.db)),
  acknowledge: operatorProcedure.input(acknowledgeInput).mutation(({ ctx, input }) => acknowledgeAlert(ctx.db, input, actorOf(ctx.user))),
  silences: viewerProcedure.input(silenceListInput).query(({ ctx, input }) => listSilences(ctx.db, input)),
  silence: operatorProcedure.input(silenceInput).mutation(({ ctx, input }) => createSilence(ctx.db, input, actorOf(ctx.user))),
  unsilence: operatorProcedure.input(endSilenceInput).mutation(({ ctx, input }) => endSilence(ctx.db, input, actorOf(ctx.user))),
  deliveries: operatorProcedure.input(deliveryListInput).query(({ ctx, input }) => listDeliveries(ctx.db, input)),
});
