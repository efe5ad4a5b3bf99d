// The peer's side of the job: the same three steps as taskmesh's `shout` flow
// (runtime/examples/text.py), as Restate services, served on the port in argv[2].
//   steps/upper   one invocation per step: upper calls reverse, which calls count,
//                 each a durable invocation of its own (as each of our actors is a hop)
//   inOne/run     three journaled steps (ctx.run) in one handler
import * as restate from "@restatedev/restate-sdk";

const step = (payload, name) => ({ ...payload, steps: [...(payload.steps ?? []), name] });
const upper = (p) => step({ ...p, text: p.text.toUpperCase() }, "upper");
const reverse = (p) => step({ ...p, text: [...p.text].reverse().join("") }, "reverse");
const count = (p) => step({ ...p, length: [...p.text].length }, "count");

const steps = restate.service({
  name: "steps",
  handlers: {
    upper: async (ctx, p) => ctx.serviceClient(steps).reverse(upper(p)),
    reverse: async (ctx, p) => ctx.serviceClient(steps).count(reverse(p)),
    count: async (_ctx, p) => count(p),
  },
});

const inOne = restate.service({
  name: "inOne",
  handlers: {
    run: async (ctx, p) => {
      const a = await ctx.run("upper", () => upper(p));
      const b = await ctx.run("reverse", () => reverse(a));
      return ctx.run("count", () => count(b));
    },
  },
});

restate.endpoint().bind(steps).bind(inOne).listen(Number(process.argv[2] ?? 9080));
