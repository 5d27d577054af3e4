// Validates Kubernetes objects (a JSON array on stdin) against the API's schemas that the
// kubernetes-models package carries (it is ESM only, so it runs here, in a process of its own,
// rather than inside jest). Prints a JSON array: one entry per object, null when valid, else
// the schema's complaint. Exit 2 when an object's apiVersion/kind has no model.
const input = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (chunk) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
  }),
);

const results = [];
for (const object of input) {
  const path = `kubernetes-models/${object.apiVersion}/${object.kind}`;
  let Model;
  try {
    ({ [object.kind]: Model } = await import(path));
  } catch (error) {
    process.stderr.write(`no model for ${object.apiVersion} ${object.kind} (${path}): ${error.message}\n`);
    process.exit(2);
  }
  try {
    new Model(object).validate();
    results.push(null);
  } catch (error) {
    results.push(`${object.kind} ${object.metadata?.name}: ${error.message}`);
  }
}
process.stdout.write(JSON.stringify(results));
