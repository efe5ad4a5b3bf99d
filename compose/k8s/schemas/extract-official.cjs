// Writes kubernetes-1.22.0-definitions.json: the Kubernetes 1.22.0 OpenAPI definitions, as JSON
// Schema, of the kinds compose/k8s uses and everything they reference. Source: the npm package
// kubernetes-models 3.1.0 (with @kubernetes-models/apimachinery 0.2.0), whose _schemas/*.js hold
// each definition as a plain object and register it with @kubernetes-models/validate; run with a
// stand-in for that package that records what registers (see README.md beside this file):
//   node extract-official.cjs <dir with node_modules> > kubernetes-1.22.0-definitions.json
const path = require("path");
const modules = path.join(process.argv[2], "node_modules");
const roots = {
  "io.k8s.api.apps.v1.Deployment": "kubernetes-models/_schemas/IoK8sApiAppsV1Deployment.js",
  "io.k8s.api.apps.v1.StatefulSet": "kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet.js",
  "io.k8s.api.core.v1.Service": "kubernetes-models/_schemas/IoK8sApiCoreV1Service.js",
  "io.k8s.api.core.v1.ConfigMap": "kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap.js",
  "io.k8s.api.core.v1.Secret": "kubernetes-models/_schemas/IoK8sApiCoreV1Secret.js",
  "io.k8s.api.policy.v1.PodDisruptionBudget":
    "kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget.js",
};
for (const file of Object.values(roots)) {
  require(path.join(modules, file)).addSchema();
}
// "io.k8s...#" ids become references into this one document
const refs = (node) => {
  if (Array.isArray(node)) return node.map(refs);
  if (node && typeof node === "object") {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === "$ref" ? "#/definitions/" + v.replace(/#$/, "") : refs(v);
    }
    return out;
  }
  return node;
};
const definitions = {};
for (const id of Object.keys(globalThis.registered).sort()) {
  definitions[id] = refs(globalThis.registered[id]);
}
process.stdout.write(
  JSON.stringify(
    { kubernetes: "1.22.0", source: "kubernetes-models 3.1.0", roots: Object.keys(roots), definitions },
    null,
    1,
  ) + "\n",
);
