// Reads knot sets (JSON on stdin: [[[x, y], ...], ...]) and prints, for each, the path commands
// d3-shape's curveMonotoneX draws through them: [["M", x, y], ["C", x1, y1, x2, y2, x, y] | ["L", x, y], ...].
import { line, curveMonotoneX } from "d3-shape";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const sets = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const out = sets.map((knots) => {
  const commands = [];
  const recorder = {
    moveTo: (x, y) => commands.push(["M", x, y]),
    lineTo: (x, y) => commands.push(["L", x, y]),
    bezierCurveTo: (x1, y1, x2, y2, x, y) => commands.push(["C", x1, y1, x2, y2, x, y]),
    closePath: () => commands.push(["Z"]),
  };
  line().curve(curveMonotoneX).context(recorder)(knots);
  return commands;
});
process.stdout.write(JSON.stringify(out));
