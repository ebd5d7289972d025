/* Perceptron playground: the browser side of `rosenblatt playground`.
 *
 * The page does no learning arithmetic. It sends the points and settings to
 * POST api/run, receives every presentation precomputed (weights after each
 * one, the step table's rows, decision-value grids, the theory's numbers),
 * and only moves a cursor c through them: c presentations done, 0 <= c <= n_rows.
 *
 * Comparison panels (#compare) are more learners of the same request, trained
 * by the server on the same points in the same order; each panel reads its
 * learner's weights and mistakes after c presentations off the reply, as the
 * main read-outs do. The cursor runs to the end of the longest run; a run that
 * ended earlier holds its last state.
 *
 * Exercises (#exercise) ask for the weight vector after the next presentation
 * before Step moves on, and check the answer against the engine's.
 *
 * Static copies (`window.PLAYGROUND_STATIC`) carry one precomputed run per
 * algorithm and make no request at all.
 */
(function () {
  "use strict";

  var ALGORITHMS = ["online", "batch", "averaged", "voted", "kernel"];
  var COMPARE = ["perceptron", "averaged", "voted", "kernel", "budgeted-kernel"];
  var MAX_PANELS = 0; // the server's cap, limits.max_panels (a static copy has none)
  // the exercise sets: a preset, trained online with eta 1, bias input -1, in order
  var EXERCISE_SETS = ["or", "and", "xor"];
  var SVGNS = "http://www.w3.org/2000/svg";
  var MAX_TRACE_ROWS = 2000;
  var PAGE_MAX_EPOCHS = 100; // the page's own cap on the epochs it asks for
  var BUSY_RETRIES = 5; // a run the busy server turned away (HTTP 503) is posted again this often
  // the server's caps on a run (max_points, max_presentations, max_epochs, max_degree,
  // max_seed): api/presets serves them, so the page checks what the server will check;
  // static copies run nothing
  var limits = null;
  var SIZE = 600; // the SVG viewBox is SIZE x SIZE
  var PAD = { left: 44, right: 14, top: 14, bottom: 44 };
  var ARROW_PX = 70; // length of the update arrow in viewBox units
  var MINUS = "\u2212";
  // one picture language: the class colours of rosenblatt.apps.palette, served with the
  // presets (these are its values until they come)
  var PALETTE = {
    positive: { color: "#0072B2", words: "blue circle" },
    negative: { color: "#D55E00", words: "orange square" },
    region_alpha: 0.2,
  };
  var VOTE_PIXELS = 300; // the voted regions are drawn at this many pixels a side

  var state = {
    view: [-3, 3, -3, 3],
    presets: null, // name -> {title, points, labels}
    presetOrder: [],
    preset: "or",
    points: [],
    labels: [],
    edited: false,
    settings: {
      algorithm: "online",
      eta: 1,
      bias: -1,
      shuffle: false,
      seed: 0,
      featureMap: false,
      kernel: "rbf",
      gamma: 1,
      degree: 2,
      budget: 0,
      budgetPolicy: "stop",
    },
    showMaxMargin: false,
    compare: [], // the comparison panels' learners, in order
    keepCursor: false, // the next run keeps the cursor (a panel was added)
    exercise: { on: false, asking: false, right: 0, asked: 0, set: "or" },
    newClass: 1,
    run: null, // the response being shown, with helpers (see prepareRun)
    cursor: 0,
    pending: false,
    staticData: null,
    seq: 0,
    controller: null,
    debounce: null,
    playing: false,
    playTimer: null,
    press: null, // pointer pressed on empty space (adds a point on release)
    drag: null, // pointer dragging a point
    trace: { first: 0, end: 0, run: null },
    runCount: 0,
    urlNote: "",
    scrollQueued: false,
  };

  function $(id) {
    return document.getElementById(id);
  }

  // ------------------------------------------------------------------ numbers
  function stripZeros(s) {
    if (s.indexOf(".") < 0) return s;
    s = s.replace(/0+$/, "");
    return s.charAt(s.length - 1) === "." ? s.slice(0, -1) : s;
  }

  /** Integers as integers, other numbers with 4 significant digits. */
  function fmt(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v !== "number") return String(v);
    if (!isFinite(v)) return String(v).replace("-", MINUS);
    var s;
    if (Number.isInteger(v) && Math.abs(v) < 1e15) {
      s = String(v === 0 ? 0 : v);
    } else {
      s = v.toPrecision(4);
      var e = s.indexOf("e");
      s = e < 0 ? stripZeros(s) : stripZeros(s.slice(0, e)) + s.slice(e);
      if (/^-0$/.test(s)) s = "0";
    }
    return s.replace("-", MINUS);
  }

  function fmtVector(v) {
    if (!v) return "–";
    return "(" + v.map(fmt).join(", ") + ")";
  }

  function isNum(v) {
    return typeof v === "number" && isFinite(v);
  }

  // ------------------------------------------------------------------ messages
  function showMessage(text) {
    var el = $("message");
    el.textContent = text;
    el.hidden = !text;
  }

  function setReady(ready) {
    document.body.dataset.ready = ready ? "true" : "false";
  }

  function setData(el, value) {
    el.dataset.value = JSON.stringify(value === undefined ? null : value);
  }

  // ------------------------------------------------------------------ geometry
  var plotW = SIZE - PAD.left - PAD.right;
  var plotH = SIZE - PAD.top - PAD.bottom;

  function px(x) {
    var v = state.view;
    return PAD.left + ((x - v[0]) / (v[1] - v[0])) * plotW;
  }

  function py(y) {
    var v = state.view;
    return PAD.top + ((v[3] - y) / (v[3] - v[2])) * plotH;
  }

  function toData(sx, sy) {
    var v = state.view;
    return [
      v[0] + ((sx - PAD.left) / plotW) * (v[1] - v[0]),
      v[3] - ((sy - PAD.top) / plotH) * (v[3] - v[2]),
    ];
  }

  function clampToView(p) {
    var v = state.view;
    return [Math.min(v[1], Math.max(v[0], p[0])), Math.min(v[3], Math.max(v[2], p[1]))];
  }

  function round2(x) {
    var r = Math.round(x * 100) / 100;
    return r === 0 ? 0 : r;
  }

  function boxPolygon() {
    var v = state.view;
    return [
      [v[0], v[2]],
      [v[1], v[2]],
      [v[1], v[3]],
      [v[0], v[3]],
    ];
  }

  /** The part of a convex polygon where a*x + b*y + c >= 0 (Sutherland-Hodgman, one edge). */
  function clipHalfPlane(poly, a, b, c) {
    var out = [];
    for (var i = 0; i < poly.length; i++) {
      var p = poly[i];
      var q = poly[(i + 1) % poly.length];
      var fp = a * p[0] + b * p[1] + c;
      var fq = a * q[0] + b * q[1] + c;
      if (fp >= 0) out.push(p);
      if ((fp >= 0) !== (fq >= 0)) {
        var t = fp / (fp - fq);
        out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    }
    return out;
  }

  /** The segment of the line a*x + b*y + c = 0 inside the view box, or null. */
  function lineInBox(a, b, c) {
    if (!(isNum(a) && isNum(b) && isNum(c))) return null;
    var scale = Math.max(Math.abs(a), Math.abs(b));
    if (scale === 0 || scale < 1e-12 * Math.abs(c)) return null;
    var v = state.view;
    var pts = [];
    if (b !== 0) {
      [v[0], v[1]].forEach(function (x) {
        var y = -(a * x + c) / b;
        if (y >= v[2] - 1e-9 && y <= v[3] + 1e-9) pts.push([x, y]);
      });
    }
    if (a !== 0) {
      [v[2], v[3]].forEach(function (y) {
        var x = -(b * y + c) / a;
        if (x >= v[0] - 1e-9 && x <= v[1] + 1e-9) pts.push([x, y]);
      });
    }
    if (pts.length < 2) return null;
    // the two points farthest apart (corners can appear twice)
    var best = null;
    var bestD = -1;
    for (var i = 0; i < pts.length; i++) {
      for (var j = i + 1; j < pts.length; j++) {
        var d = Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]);
        if (d > bestD) {
          bestD = d;
          best = [pts[i], pts[j]];
        }
      }
    }
    return bestD > 0 ? best : null;
  }

  /** Marching squares: the level-0 contour of a grid as polylines in data coordinates. */
  function contour(values, S) {
    var v = state.view;
    var dx = (v[1] - v[0]) / (S - 1);
    var dy = (v[3] - v[2]) / (S - 1);
    var at = function (i, j) {
      return values[j * S + i];
    };
    // crossing point on an edge; edges are keyed so that neighbouring cells share keys
    var cross = function (i0, j0, i1, j1) {
      var a = at(i0, j0);
      var b = at(i1, j1);
      var t = a === b ? 0.5 : a / (a - b);
      t = Math.min(1, Math.max(0, t));
      return {
        key: i0 + "," + j0 + (i1 !== i0 ? "h" : "v"),
        p: [v[0] + (i0 + t * (i1 - i0)) * dx, v[2] + (j0 + t * (j1 - j0)) * dy],
      };
    };
    var segments = [];
    for (var j = 0; j < S - 1; j++) {
      for (var i = 0; i < S - 1; i++) {
        var v00 = at(i, j) > 0;
        var v10 = at(i + 1, j) > 0;
        var v11 = at(i + 1, j + 1) > 0;
        var v01 = at(i, j + 1) > 0;
        var code = (v00 ? 1 : 0) | (v10 ? 2 : 0) | (v11 ? 4 : 0) | (v01 ? 8 : 0);
        if (code === 0 || code === 15) continue;
        var e = {};
        if (v00 !== v10) e.bottom = cross(i, j, i + 1, j);
        if (v10 !== v11) e.right = cross(i + 1, j, i + 1, j + 1);
        if (v01 !== v11) e.top = cross(i, j + 1, i + 1, j + 1);
        if (v00 !== v01) e.left = cross(i, j, i, j + 1);
        if (code === 5 || code === 10) {
          var centre = (at(i, j) + at(i + 1, j) + at(i + 1, j + 1) + at(i, j + 1)) / 4 > 0;
          // cut off the corners whose sign differs from the centre's
          if (v00 !== centre) {
            segments.push([e.left, e.bottom], [e.right, e.top]);
          } else {
            segments.push([e.bottom, e.right], [e.top, e.left]);
          }
        } else {
          var ends = [e.bottom, e.right, e.top, e.left].filter(Boolean);
          segments.push([ends[0], ends[1]]);
        }
      }
    }
    // join segments that share an edge crossing into polylines
    var byKey = {};
    segments.forEach(function (s, k) {
      [s[0].key, s[1].key].forEach(function (key) {
        (byKey[key] = byKey[key] || []).push(k);
      });
    });
    var used = new Array(segments.length).fill(false);
    var lines = [];
    var extend = function (line, key) {
      for (;;) {
        var next = (byKey[key] || []).filter(function (k) {
          return !used[k];
        })[0];
        if (next === undefined) return;
        used[next] = true;
        var s = segments[next];
        var other = s[0].key === key ? s[1] : s[0];
        line.push(other.p);
        key = other.key;
      }
    };
    segments.forEach(function (s, k) {
      if (used[k]) return;
      used[k] = true;
      var forward = [s[0].p, s[1].p];
      extend(forward, s[1].key);
      var backward = [];
      extend(backward, s[0].key);
      lines.push(backward.reverse().concat(forward));
    });
    return lines;
  }

  // ------------------------------------------------------------------ svg helpers
  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        node.setAttribute(k, attrs[k]);
      });
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function polygonPoints(poly) {
    return poly
      .map(function (p) {
        return px(p[0]).toFixed(2) + "," + py(p[1]).toFixed(2);
      })
      .join(" ");
  }

  function polylinePath(line) {
    return line
      .map(function (p, k) {
        return (k ? "L" : "M") + px(p[0]).toFixed(2) + "," + py(p[1]).toFixed(2);
      })
      .join("");
  }

  function drawLine(parent, a, b, c, cls, id) {
    var seg = lineInBox(a, b, c);
    if (!seg) return null;
    var attrs = {
      x1: px(seg[0][0]).toFixed(2),
      y1: py(seg[0][1]).toFixed(2),
      x2: px(seg[1][0]).toFixed(2),
      y2: py(seg[1][1]).toFixed(2),
      class: cls,
    };
    if (id) attrs.id = id;
    return el("line", attrs, parent);
  }

  // ------------------------------------------------------------------ axes and points
  function drawAxes() {
    var g = $("layer-axes");
    clear(g);
    var v = state.view;
    el(
      "rect",
      { x: PAD.left, y: PAD.top, width: plotW, height: plotH, class: "plot-frame" },
      g,
    );
    var clip = $("plot-clip-rect");
    clip.setAttribute("x", PAD.left);
    clip.setAttribute("y", PAD.top);
    clip.setAttribute("width", plotW);
    clip.setAttribute("height", plotH);
    var tickStep = function (lo, hi) {
      var span = hi - lo;
      var raw = span / 8;
      var p = Math.pow(10, Math.floor(Math.log10(raw)));
      var m = raw / p;
      return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    };
    var sx = tickStep(v[0], v[1]);
    var sy = tickStep(v[2], v[3]);
    for (var x = Math.ceil(v[0] / sx) * sx; x <= v[1] + 1e-9; x += sx) {
      var X = px(x);
      el("line", { x1: X, y1: PAD.top, x2: X, y2: PAD.top + plotH, class: Math.abs(x) < 1e-9 ? "axis" : "gridline" }, g);
      var t = el("text", { x: X, y: PAD.top + plotH + 22, class: "tick", "text-anchor": "middle" }, g);
      t.textContent = fmt(round2(x));
    }
    for (var y = Math.ceil(v[2] / sy) * sy; y <= v[3] + 1e-9; y += sy) {
      var Y = py(y);
      el("line", { x1: PAD.left, y1: Y, x2: PAD.left + plotW, y2: Y, class: Math.abs(y) < 1e-9 ? "axis" : "gridline" }, g);
      var u = el("text", { x: PAD.left - 8, y: Y + 6, class: "tick", "text-anchor": "end" }, g);
      u.textContent = fmt(round2(y));
    }
    var lx = el("text", { x: PAD.left + plotW - 4, y: SIZE - 6, class: "axis-label", "text-anchor": "end" }, g);
    lx.textContent = "x\u2081";
    var ly = el("text", { x: 6, y: PAD.top + 16, class: "axis-label" }, g);
    ly.textContent = "x\u2082";
  }

  function displayedPoints() {
    // while a run is shown for the current points, they are the request's points
    return { points: state.points, labels: state.labels };
  }

  function pointShape(label, parent) {
    if (label > 0) {
      el("circle", { r: 9, class: "pt-pos" }, parent);
    } else {
      el("rect", { x: -8.5, y: -8.5, width: 17, height: 17, class: "pt-neg" }, parent);
    }
  }

  function drawPoints() {
    var g = $("layer-points");
    clear(g);
    var d = displayedPoints();
    var numbered = d.points.length <= 16; // more numbers than that only clutter the plot
    d.points.forEach(function (p, k) {
      var node = el(
        "g",
        {
          class: "point " + (d.labels[k] > 0 ? "pos" : "neg"),
          "data-index": k,
          "data-x": p[0],
          "data-y": p[1],
          "data-label": d.labels[k],
          transform: "translate(" + px(p[0]).toFixed(2) + "," + py(p[1]).toFixed(2) + ")",
        },
        g,
      );
      el("circle", { r: 20, class: "hit" }, node);
      pointShape(d.labels[k], node);
      if (numbered) {
        var t = el("text", { x: 17, y: -17, class: "pt-number" }, node);
        t.textContent = String(k + 1);
      }
    });
    var n = d.points.length;
    $("points").textContent = String(n);
    setData($("points"), n);
  }

  // ------------------------------------------------------------------ the run at the cursor
  function prepareRun(data, request) {
    var run = data;
    run.request = request;
    var N = run.n_rows || 0;
    var updated = (run.rows && run.rows.updated) || [];
    var mistakes = new Array(N + 1);
    mistakes[0] = 0;
    for (var r = 0; r < N; r++) mistakes[r + 1] = mistakes[r] + (updated[r] ? 1 : 0);
    run.mistakesUpTo = mistakes;
    run.epochEnds = (run.epoch_ends || []).slice().sort(function (a, b) {
      return a - b;
    });
    run.primal = run.algorithm !== "kernel" && !!run.weights;
    run.linear = !!run.features && run.features.length === 2;
    run.gridCache = {};
    // the shared cursor runs to the end of the longest run, through every epoch's end
    run.panels = run.panels || [];
    run.end = N;
    var ends = run.epochEnds.slice();
    run.panels.forEach(function (panel) {
      panel.gridCache = {};
      run.end = Math.max(run.end, panel.n_rows || 0);
      ends = ends.concat(panel.epoch_ends || []);
    });
    run.allEpochEnds = ends
      .sort(function (a, b) {
        return a - b;
      })
      .filter(function (v, k, a) {
        return k === 0 || v !== a[k - 1];
      });
    return run;
  }

  /** The main learner's cursor: the shared one, held at the end of its own run. */
  function mainCursor() {
    var run = state.run;
    return run ? Math.min(state.cursor, run.n_rows) : 0;
  }

  function countAtMost(sorted, c) {
    var lo = 0;
    var hi = sorted.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (sorted[mid] <= c) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function gridAt(run, c) {
    return gridOf(run.grids, c);
  }

  /** The grid of `grids` in force after c presentations (the last one computed before). */
  function gridOf(g, c) {
    if (!g || !g.at || !g.values) return null;
    var k = countAtMost(g.at, c) - 1;
    if (k < 0) return null;
    return { index: k, values: g.values[k], size: g.size };
  }

  function bias(run) {
    return isNum(run.bias) ? run.bias : state.settings.bias;
  }

  /** Decision value of an augmented weight vector for the page's feature names (for drawing only). */
  function featureValue(name, x1, x2) {
    switch (name) {
      case "x1":
        return x1;
      case "x2":
        return x2;
      case "x1*x2":
        return x1 * x2;
      case "x1^2":
        return x1 * x1;
      case "x2^2":
        return x2 * x2;
      default:
        return null;
    }
  }

  function evaluateOnGrid(run, w, S) {
    var v = state.view;
    var names = run.features;
    var b = bias(run);
    var out = new Array(S * S);
    for (var j = 0; j < S; j++) {
      var y = v[2] + (j * (v[3] - v[2])) / (S - 1);
      for (var i = 0; i < S; i++) {
        var x = v[0] + (i * (v[1] - v[0])) / (S - 1);
        var s = w[names.length] * b;
        for (var f = 0; f < names.length; f++) {
          var phi = featureValue(names[f], x, y);
          if (phi === null) return null;
          s += w[f] * phi;
        }
        out[j * S + i] = s;
      }
    }
    return out;
  }

  function rgbOf(color) {
    return [1, 3, 5].map(function (k) {
      return parseInt(color.slice(k, k + 2), 16);
    });
  }

  /** The served palette into the page's colours (CSS variables) and its legend. */
  function applyPalette(palette) {
    if (palette && palette.positive && palette.negative) PALETTE = palette;
    var root = document.documentElement.style;
    var alpha = PALETTE.region_alpha;
    [
      ["pos", PALETTE.positive.color],
      ["neg", PALETTE.negative.color],
    ].forEach(function (pair) {
      var rgb = rgbOf(pair[1]);
      root.setProperty("--" + pair[0], pair[1]);
      root.setProperty("--" + pair[0] + "-light", "rgba(" + rgb.join(", ") + ", " + alpha + ")");
    });
    $("legend-pos").textContent = "class +1 (" + PALETTE.positive.words + ")";
    $("legend-neg").textContent = "class " + MINUS + "1 (" + PALETTE.negative.words + ")";
  }

  function shadeImage(values, S) {
    var canvas = document.createElement("canvas");
    canvas.width = S;
    canvas.height = S;
    var ctx = canvas.getContext("2d");
    var img = ctx.createImageData(S, S);
    var pos = rgbOf(PALETTE.positive.color);
    var neg = rgbOf(PALETTE.negative.color);
    for (var j = 0; j < S; j++) {
      for (var i = 0; i < S; i++) {
        var val = values[j * S + i];
        var o = ((S - 1 - j) * S + i) * 4; // image rows run from the top (ymax)
        if (!(val !== 0 && isFinite(val))) {
          img.data[o + 3] = 0;
          continue;
        }
        var strength = 0.55 + 0.45 * Math.min(1, Math.abs(val));
        var rgb = val > 0 ? pos : neg;
        img.data[o] = rgb[0];
        img.data[o + 1] = rgb[1];
        img.data[o + 2] = rgb[2];
        img.data[o + 3] = Math.round(255 * PALETTE.region_alpha * strength);
      }
    }
    ctx.putImageData(img, 0, 0);
    return canvas.toDataURL("image/png");
  }

  /** Each voter's votes after c presentations: its whole survival count before the one
   * in force, the one in force's so far (the server's `current`), none after. */
  function voteCounts(voted, c) {
    var now = voted.current ? voted.current[c] : null;
    return (voted.voters || []).map(function (v, k) {
      if (!now || k > now[0]) return 0;
      return k === now[0] ? now[1] : v.votes;
    });
  }

  /** The vote sum_k c_k sign(w_k . x) on an S x S grid of the view, for drawing only (the
   * server's voters and counts; the biggest voters first, stopping where the rest cannot
   * change the sign). Returns sign * (0.5 + 0.5 * margin of the vote), 0 for a tie. */
  function voteGrid(run, voted, c, S) {
    var counts = voteCounts(voted, c);
    var order = counts
      .map(function (n, k) {
        return k;
      })
      .filter(function (k) {
        return counts[k] > 0;
      })
      .sort(function (a, b) {
        return counts[b] - counts[a];
      });
    var total = 0;
    var rest = order.map(function (k) {
      return counts[k];
    });
    for (var q = rest.length - 1; q >= 0; q--) {
      total += rest[q];
      rest[q] = total;
    }
    var ws = order.map(function (k) {
      return voted.voters[k].w;
    });
    var v = state.view;
    var names = run.features;
    var b = bias(run);
    var out = new Float64Array(S * S);
    var phi = new Array(names.length);
    for (var j = 0; j < S; j++) {
      var y = v[2] + (j * (v[3] - v[2])) / (S - 1);
      for (var i = 0; i < S; i++) {
        var x = v[0] + (i * (v[1] - v[0])) / (S - 1);
        for (var f = 0; f < names.length; f++) phi[f] = featureValue(names[f], x, y);
        var sum = 0;
        for (var r = 0; r < ws.length; r++) {
          if (Math.abs(sum) > rest[r]) break; // the remaining votes cannot flip it
          var w = ws[r];
          var s = w[names.length] * b;
          for (f = 0; f < names.length; f++) s += w[f] * phi[f];
          sum += s > 0 ? counts[order[r]] : -counts[order[r]]; // a zero score votes against
        }
        out[j * S + i] = total ? (sum === 0 ? 0 : (sum > 0 ? 1 : -1) * (0.5 + (0.5 * Math.abs(sum)) / total)) : 0;
      }
    }
    return out;
  }

  /** The voted classifier's regions and boundary after c presentations, in `shade` and
   * `lines`, cached per cursor (`cache`). */
  function drawVote(run, voted, c, cache, shade, lines, S) {
    var key = "vote" + c;
    var drawn = cache[key];
    if (!drawn) {
      var values = voteGrid(run, voted, c, S);
      drawn = cache[key] = { href: shadeImage(values, S), path: contourPath(values, S) };
    }
    var image = drawShadeFromGrid(shade, drawn.href, S);
    image.setAttribute("class", "shade-image vote-regions");
    image.setAttribute("data-size", String(S));
    drawContour(lines, null, S, "boundary vote-boundary", null, drawn.path);
  }

  function drawShadeFromGrid(parent, href, S) {
    var v = state.view;
    var hx = (v[1] - v[0]) / (S - 1) / 2;
    var hy = (v[3] - v[2]) / (S - 1) / 2;
    return el(
      "image",
      {
        href: href,
        x: px(v[0] - hx),
        y: py(v[3] + hy),
        width: px(v[1] + hx) - px(v[0] - hx),
        height: py(v[2] - hy) - py(v[3] + hy),
        preserveAspectRatio: "none",
        class: "shade-image",
      },
      parent,
    );
  }

  function contourPath(values, S) {
    return contour(values, S).map(polylinePath).join("");
  }

  function drawContour(parent, values, S, cls, id, path) {
    var d = path === undefined ? contourPath(values, S) : path;
    if (!d) return null;
    var attrs = { d: d, class: cls };
    if (id) attrs.id = id;
    return el("path", attrs, parent);
  }

  function drawModel() {
    var shade = $("layer-shade");
    var margin = $("layer-margin");
    var lines = $("layer-lines");
    var sv = $("layer-sv");
    var hl = $("layer-highlight");
    [shade, margin, lines, sv, hl].forEach(clear);
    var run = state.run;
    updateLegend();
    if (!run) return;
    var c = mainCursor();
    var b = bias(run);
    var w = run.weights ? run.weights[c] : null;
    var grid = gridAt(run, c);

    // The server's grid is the prediction: the vote (voted), the kernel expansion
    // (kernel), the averaged weights (averaged with the feature map) or the last
    // weights (online and batch with the feature map). Without a grid the
    // boundary is the straight line of weights[c].
    var alg = run.algorithm;
    var averagedGrid = alg === "averaged" && !!grid;
    var linearOf = function (v) {
      return [v[0], v[1], v[2] * b];
    };
    // a weight vector's boundary: its line, or its conic evaluated on a grid (drawing only)
    var drawWeights = function (v, cls, id) {
      if (run.linear) {
        var l = linearOf(v);
        return drawLine(lines, l[0], l[1], l[2], cls, id);
      }
      var S = 61;
      var vals = run.features ? evaluateOnGrid(run, v, S) : null;
      return vals ? drawContour(lines, vals, S, cls, id) : null;
    };

    if (alg === "voted" && run.voted && run.voted.voters && run.features) {
      // the vote itself, at the page's resolution (the server's voters and their counts)
      drawVote(run, run.voted, c, run.gridCache, shade, lines, VOTE_PIXELS);
      if (w) drawWeights(w, "voter-line", "current-line"); // the vector in force
    } else if (grid) {
      // one picture and one contour per grid, computed once per run
      var cached = run.gridCache[grid.index];
      if (!cached) {
        cached = run.gridCache[grid.index] = {
          href: shadeImage(grid.values, grid.size),
          path: contourPath(grid.values, grid.size),
        };
      }
      drawShadeFromGrid(shade, cached.href, grid.size);
      var gridName = averagedGrid ? "averaged-line" : "boundary";
      drawContour(lines, grid.values, grid.size, gridName, gridName, cached.path);
    } else if (w && run.linear) {
      var L = linearOf(w);
      if (L[0] === 0 && L[1] === 0) {
        if (L[2] !== 0) {
          el("polygon", { points: polygonPoints(boxPolygon()), class: L[2] > 0 ? "shade-pos" : "shade-neg" }, shade);
        }
      } else {
        var pos = clipHalfPlane(boxPolygon(), L[0], L[1], L[2]);
        var neg = clipHalfPlane(boxPolygon(), -L[0], -L[1], -L[2]);
        if (pos.length > 2) el("polygon", { points: polygonPoints(pos), class: "shade-pos" }, shade);
        if (neg.length > 2) el("polygon", { points: polygonPoints(neg), class: "shade-neg" }, shade);
        drawLine(lines, L[0], L[1], L[2], "boundary", "boundary");
      }
    }
    if (grid && w && averagedGrid && alg !== "voted") drawWeights(w, "boundary", "boundary"); // the last weights
    // averaged: the averaged hypothesis, dashed, beside the last weights
    if (run.averaged && run.averaged[c] && !averagedGrid) {
      drawWeights(run.averaged[c], "averaged-line", "averaged-line");
    }

    // the max-margin separator of the points and its band
    var mm = run.theory && run.theory.max_margin;
    if (state.showMaxMargin && mm && mm.coef && mm.coef.length === 2 && isNum(mm.intercept) && isNum(mm.margin)) {
      var p = mm.coef[0];
      var q = mm.coef[1];
      var r0 = mm.intercept;
      var half = mm.margin * Math.hypot(p, q);
      var g = el("g", { id: "max-margin" }, margin);
      var band = clipHalfPlane(clipHalfPlane(boxPolygon(), p, q, r0 + half), -p, -q, -r0 + half);
      if (band.length > 2) el("polygon", { points: polygonPoints(band), class: "margin-band" }, g);
      drawLine(g, p, q, r0 - half, "margin-edge");
      drawLine(g, p, q, r0 + half, "margin-edge");
      drawLine(g, p, q, r0, "margin-line", "max-margin-line");
    }

    var pts = (run.request && run.request.points) || state.points;

    // kernel: the support vectors after c presentations, and those a budget evicted
    if (run.kernel && run.kernel.support) {
      var support = supportAt(run, c);
      Object.keys(support.current).forEach(function (k) {
        var pt = pts[+k];
        if (!pt) return;
        el("circle", { cx: px(pt[0]), cy: py(pt[1]), r: 16, class: "sv-ring support-vector", "data-index": k }, sv);
      });
      Object.keys(support.evicted).forEach(function (k) {
        var pt = pts[+k];
        if (!pt || support.current[k]) return;
        el("circle", { cx: px(pt[0]), cy: py(pt[1]), r: 16, class: "sv-ring evicted", "data-index": k }, sv);
      });
    }

    // the pattern just presented (row c-1) and its update
    if (c > 0 && run.rows && run.rows.pattern) {
      var r = c - 1;
      var idx = run.rows.pattern[r];
      var at = pts[idx];
      if (at) {
        var X = px(at[0]);
        var Y = py(at[1]);
        el("circle", { cx: X, cy: Y, r: 20, class: "current-ring", id: "current-pattern", "data-index": idx }, hl);
        if (pts.length > 16) {
          // the plot numbers only small sets: name the pattern the table's last row shows
          var num = el("text", { x: X + 17, y: Y - 17, class: "pt-number" }, hl);
          num.textContent = String(idx + 1);
        }
        var delta = run.rows.delta && run.rows.delta[r];
        if (run.rows.updated[r] && delta) {
          var ddx = delta[0] * (plotW / (state.view[1] - state.view[0]));
          var ddy = -delta[1] * (plotH / (state.view[3] - state.view[2]));
          var len = Math.hypot(ddx, ddy);
          if (len > 0) {
            var ex = X + (ddx / len) * ARROW_PX;
            var ey = Y + (ddy / len) * ARROW_PX;
            var arrow = el("g", { id: "update-arrow" }, hl);
            el("line", { x1: X, y1: Y, x2: ex, y2: ey, class: "arrow-halo" }, arrow);
            el("line", { x1: X, y1: Y, x2: ex, y2: ey, class: "arrow", "marker-end": "url(#arrowhead)" }, arrow);
            var lbl = el("text", { x: ex + (ddx / len) * 14, y: ey + (ddy / len) * 14 + 6, class: "arrow-label", "text-anchor": "middle" }, arrow);
            lbl.textContent = "\u0394w";
          }
        }
      }
    }
  }

  function updateLegend() {
    var run = state.run;
    var alg = run ? run.algorithm : state.settings.algorithm;
    var hasMM = !!(state.showMaxMargin && run && run.theory && run.theory.max_margin);
    var shown = { averaged: alg === "averaged", voted: alg === "voted", kernel: alg === "kernel", "max-margin": hasMM };
    document.querySelectorAll("[data-only]").forEach(function (node) {
      node.hidden = !shown[node.dataset.only];
    });
  }

  // ------------------------------------------------------------------ read-outs
  function theoryValue(name) {
    var t = state.run && state.run.theory;
    if (!t || !(name in t)) return null;
    return t[name];
  }

  function renderReadouts() {
    var run = state.run;
    var c = mainCursor();

    $("cursor").textContent = run ? state.cursor + " / " + run.end : "–";
    setData($("cursor"), state.cursor);

    var w = run && run.weights ? run.weights[c] : null;
    $("weights").textContent = run ? (w ? fmtVector(w) : "none (dual form)") : "–";
    setData($("weights"), w);
    var names = run && run.features && run.weights ? run.features.concat(["x0=" + fmt(bias(run))]) : null;
    $("weights-names").textContent = names ? "(" + names.join(", ") + ")" : "";

    var avg = run && run.averaged ? run.averaged[c] : null;
    $("averaged-weights").textContent = avg ? fmtVector(avg) : "–";
    setData($("averaged-weights"), avg);

    var mistakes = run ? run.mistakesUpTo[c] : 0;
    $("mistakes").textContent = run ? String(mistakes) : "–";
    setData($("mistakes"), mistakes);

    var epochs = run ? countAtMost(run.epochEnds, c) : 0;
    $("epochs").textContent = run ? String(epochs) : "–";
    setData($("epochs"), epochs);

    var separable = theoryValue("separable");
    $("separable").textContent = separable === null ? "–" : separable ? "yes" : "no";
    setData($("separable"), separable);

    [
      ["margin", "margin"],
      ["radius", "R"],
      ["theory-gamma", "gamma"],
      ["normalized-margin", "normalized"],
      ["bound", "bound"],
    ].forEach(function (pair) {
      var value = theoryValue(pair[1]);
      $(pair[0]).textContent = run ? fmt(value) : "–";
      setData($(pair[0]), value);
    });

    var bound = theoryValue("bound");
    var vs = "–";
    if (run) {
      vs = isNum(bound)
        ? mistakes + " ≤ " + fmt(bound) + (mistakes <= bound ? "" : "  (bound exceeded?)")
        : mistakes + " (no bound: not linearly separable)";
    }
    $("mistakes-vs-bound").textContent = vs;

    var svCount = null;
    var text = "–";
    if (run && run.kernel && run.kernel.support) {
      svCount = Object.keys(supportAt(run, c).current).length;
      text = String(svCount) + (run.kernel.budget ? " of " + run.kernel.budget : "");
    }
    $("support-vectors").textContent = text;
    setData($("support-vectors"), svCount);

    renderVotes();
  }

  function renderVotes() {
    var run = state.run;
    var c = mainCursor();
    var body = $("voters");
    clear(body);
    var voted = run && run.voted;
    if (!voted) {
      $("tally").textContent = "–";
      setData($("tally"), null);
      setData($("votes"), null);
      $("voters-note").hidden = true;
      return;
    }
    var voters = voted.voters || [];
    // the server's votes: each earlier voter's total, the current one's so far
    var now = voted.current ? voted.current[c] : null;
    var counts = voters.map(function (v, k) {
      if (!now || k > now[0]) return 0;
      return k === now[0] ? now[1] : v.votes;
    });
    var tally = c > 0 && voted.tally ? voted.tally[c - 1] : null;
    if (tally) {
      $("tally").textContent =
        "pattern " + (run.rows.pattern[c - 1] + 1) + ": " + tally[0] + " vote(s) for +1, " + tally[1] + " for " + MINUS + "1";
    } else {
      $("tally").textContent = "no pattern shown yet";
    }
    setData($("tally"), tally);
    setData($("votes"), { counts: counts, tally: tally });
    // the voters alive so far; long lists show their last 12
    var alive = [];
    voters.forEach(function (v, k) {
      if (v.start <= c) alive.push(k);
    });
    var shown = alive.slice(-12);
    shown.forEach(function (k) {
      var v = voters[k];
      var tr = document.createElement("tr");
      if (now && k === now[0]) tr.className = "current";
      [String(k + 1), fmtVector(v.w), String(v.start), String(Math.min(v.end, run.n_rows + 1) - 1), String(counts[k])].forEach(
        function (text) {
          var td = document.createElement("td");
          td.textContent = text;
          tr.appendChild(td);
        },
      );
      body.appendChild(tr);
    });
    var note = $("voters-note");
    note.hidden = alive.length <= shown.length;
    note.textContent = "last " + shown.length + " of " + alive.length + " voters";
  }

  // ------------------------------------------------------------------ the step's formulas
  var MATHML = "http://www.w3.org/1998/Math/MathML";

  function mnode(name, text, attrs) {
    var node = document.createElementNS(MATHML, name);
    if (text !== undefined && text !== null) node.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    return node;
  }

  function mrow(parts) {
    var row = mnode("mrow");
    parts.forEach(function (part) {
      row.appendChild(part);
    });
    return row;
  }

  function mn(v) {
    return mnode("mn", fmt(v));
  }

  /** A factor of a product: a negative number in parentheses, as on paper. */
  function mfactor(v) {
    return v < 0 ? mrow([mo("("), mn(v), mo(")")]) : mn(v);
  }

  function mo(op) {
    return mnode("mo", op);
  }

  function mi(name) {
    return mnode("mi", name);
  }

  /** (v_1, ..., v_n) as MathML: numbers in parentheses. */
  function mvector(v) {
    var parts = [mo("(")];
    v.forEach(function (x, k) {
      if (k) parts.push(mo(","));
      parts.push(mn(x));
    });
    parts.push(mo(")"));
    return mrow(parts);
  }

  /** One line of formulas (a paragraph holding a MathML formula), with its words for a
   * screen reader. */
  function mathLine(parts, words, cls) {
    var line = document.createElement("p");
    line.className = "math-line";
    var math = mnode("math", null, { alttext: words, "aria-label": words });
    if (cls) math.setAttribute("class", cls);
    math.appendChild(mrow(parts));
    line.appendChild(math);
    return line;
  }

  function spoken(v) {
    return "(" + v.map(fmt).join(", ") + ")";
  }

  /** The notes' update at step c (presentation c, row c - 1), its numbers filled in:
   * a = w . x, the test t a <= 0, w <- w + eta t x. */
  function renderStepMath() {
    var box = $("step-math");
    clear(box);
    var run = state.run;
    var c = mainCursor();
    if (!run || !run.rows || c === 0) {
      var p = document.createElement("p");
      p.className = "small";
      p.textContent = run ? "No step yet: press Step." : "No run.";
      box.appendChild(p);
      setData(box, null);
      return;
    }
    var r = c - 1;
    var idx = run.rows.pattern[r];
    var labels = (run.request && run.request.labels) || state.labels;
    var t = labels[idx] > 0 ? 1 : -1;
    var act = run.rows.activation[r]; // t w . x, the engine's
    var updated = !!run.rows.updated[r];
    var numbers = { step: c, pattern: idx + 1, t: t, activation: act, updated: updated };
    if (!run.primal || !run.rows.tx) {
      // the dual form: t f(x) = t sum_j alpha_j t_j K(x_j, x) + ...
      box.appendChild(
        mathLine(
          [mi("t"), mi("f"), mo("("), mi("x"), mo(")"), mo("="), mn(act), mo(updated ? "\u2264" : ">"), mn(0)],
          "t f of x equals " + fmt(act) + (updated ? ", at most 0: a mistake, alpha of pattern " + (idx + 1) + " grows by eta" : ", above 0: no mistake"),
          "step-test",
        ),
      );
      setData(box, numbers);
      return;
    }
    var x = run.rows.tx[r].map(function (v) {
      return t * v + 0; // the augmented pattern (x, x0): t x times t
    });
    var w = run.weights[r];
    var a = t * act + 0;
    var sumParts = [];
    w.forEach(function (wj, j) {
      if (j) sumParts.push(mo("+"));
      sumParts.push(mrow([mfactor(wj), mo("\u00b7"), mfactor(x[j])]));
    });
    box.appendChild(
      mathLine(
        [mi("a"), mo("="), mi("w"), mo("\u00b7"), mi("x"), mo("=")].concat(sumParts, [mo("="), mn(a)]),
        "a equals w dot x: " + w.map(function (wj, j) {
          return fmt(wj) + " times " + fmt(x[j]);
        }).join(" plus ") + " equals " + fmt(a),
        "step-activation",
      ),
    );
    box.appendChild(
      mathLine(
        [mi("t"), mi("a"), mo("="), mfactor(t), mo("\u00b7"), mfactor(a), mo("="), mn(act), mo(updated ? "\u2264" : ">"), mn(0)],
        "t times a equals " + fmt(t) + " times " + fmt(a) + " equals " + fmt(act) +
          (updated ? ", at most 0: a mistake" : ", above 0: no mistake"),
        "step-test",
      ),
    );
    var eta = run.eta;
    if (updated) {
      var delta = run.rows.delta[r];
      var after = w.map(function (wj, j) {
        return wj + delta[j];
      });
      if (run.algorithm !== "batch") after = run.weights[c];
      box.appendChild(
        mathLine(
          [mi("w"), mo("\u2190"), mi("w"), mo("+"), mi("\u03b7"), mi("t"), mi("x"), mo("="), mvector(w), mo("+"),
            mfactor(eta), mo("\u00b7"), mfactor(t), mo("\u00b7"), mvector(x), mo("="), mvector(after)],
          "w becomes w plus eta t x: " + spoken(w) + " plus " + fmt(eta) + " times " + fmt(t) + " times " +
            spoken(x) + " equals " + spoken(after) + (run.algorithm === "batch" ? ", added at the epoch's end" : ""),
          "step-update",
        ),
      );
      numbers.after = after;
    } else {
      box.appendChild(mathLine([mi("w"), mo("="), mvector(w)], "no mistake: w stays " + spoken(w), "step-update"));
      numbers.after = w;
    }
    numbers.w = w;
    numbers.x = x;
    numbers.a = a;
    setData(box, numbers);
  }

  // ------------------------------------------------------------------ comparison panels
  /** The reply's panel for the k-th learner asked for, or null (a run still on its way). */
  function panelData(k) {
    var run = state.run;
    var data = run && run.panels ? run.panels[k] : null;
    return data && data.algorithm === state.compare[k] ? data : null;
  }

  function buildPanels() {
    var box = $("panels");
    clear(box);
    state.compare.forEach(function (name, k) {
      var div = document.createElement("div");
      div.className = "compare-panel";
      div.dataset.algorithm = name;
      div.dataset.index = String(k);
      var head = document.createElement("header");
      var title = document.createElement("span");
      title.className = "panel-title";
      title.textContent = name.replace("-", " ");
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "panel-remove";
      remove.title = "Remove this panel";
      remove.textContent = "\u00d7";
      remove.addEventListener("click", function () {
        removePanel(k);
      });
      head.appendChild(title);
      head.appendChild(remove);
      div.appendChild(head);
      var svg = el("svg", { viewBox: "0 0 " + SIZE + " " + SIZE, class: "panel-plot", role: "img" }, div);
      svg.setAttribute("aria-label", name + ": its boundary after the presentations done");
      ["shade", "lines", "sv", "points", "highlight"].forEach(function (layer) {
        el("g", { "data-layer": layer }, svg);
      });
      var dl = document.createElement("dl");
      dl.className = "panel-readouts";
      var wName = {
        perceptron: "w (the last weights)",
        averaged: "w\u0304 = mean of w\u2080, \u2026, w after this step (Algorithm 7)",
        voted: "w\u2096 in force (one voter; the shading is the vote)",
      }[name] || "w";
      [
        [wName, "panel-weights"],
        ["mistakes", "panel-mistakes"],
      ].forEach(function (pair) {
        var dt = document.createElement("dt");
        dt.textContent = pair[0];
        var dd = document.createElement("dd");
        dd.className = pair[1];
        dd.dataset.value = "null";
        dd.textContent = "–";
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      div.appendChild(dl);
      box.appendChild(div);
    });
    $("compare").disabled = !!state.staticData || state.compare.length >= MAX_PANELS;
  }

  function removePanel(k) {
    state.compare.splice(k, 1);
    var run = state.run;
    if (run && run.panels && run.panels.length > k) {
      run.panels.splice(k, 1);
      prepareRun(run, run.request); // the cursor's end may be shorter now
    }
    buildPanels();
    updateURL();
    if (run) setCursor(state.cursor);
  }

  function supportOf(spells, c) {
    var current = {};
    var evicted = {};
    (spells || []).forEach(function (spell) {
      if (spell[1] <= c && c < spell[2]) current[spell[0]] = true;
      else if (spell[2] <= c) evicted[spell[0]] = true;
    });
    return { current: current, evicted: evicted };
  }

  /** One panel after c presentations of the shared cursor (its own run held at its end). */
  function renderPanel(div, data) {
    var run = state.run;
    var svg = div.querySelector(".panel-plot");
    var layer = function (name) {
      return svg.querySelector('[data-layer="' + name + '"]');
    };
    ["shade", "lines", "sv", "points", "highlight"].forEach(function (name) {
      clear(layer(name));
    });
    var wOut = div.querySelector(".panel-weights");
    var mOut = div.querySelector(".panel-mistakes");
    if (!run || !data) {
      setData(wOut, null);
      setData(mOut, null);
      wOut.textContent = mOut.textContent = state.pending ? "…" : "–";
      return;
    }
    var c = Math.min(state.cursor, data.n_rows);
    var w = data.weights ? data.weights[c] : null;
    setData(wOut, w);
    if (w) {
      wOut.textContent = fmtVector(w);
    } else {
      var count = Object.keys(supportOf(data.support, c).current).length;
      wOut.textContent = "dual form, " + count + (data.budget ? " of " + data.budget : "") + " support vectors";
    }
    var mistakes = data.mistakes[c];
    setData(mOut, mistakes);
    mOut.textContent = String(mistakes);
    if (data.voted && w) {
      var counts = voteCounts(data.voted, c);
      var now = data.voted.current ? data.voted.current[c] : null;
      var voters = counts.filter(function (n) {
        return n > 0;
      }).length;
      wOut.textContent = fmtVector(w) + (now ? ", c\u2096 = " + now[1] + " (" + voters + " voter(s) so far)" : "");
    }

    // its boundary: the vote (voted, at the page's resolution), the server's grid (the
    // kernel expansion), else its weights
    var grid = gridOf(data.grids, c);
    var cls = data.algorithm === "averaged" ? "averaged-line" : "boundary";
    if (data.voted && run.features) {
      drawVote(run, data.voted, c, data.gridCache, layer("shade"), layer("lines"), 200);
    } else if (grid) {
      var cached = data.gridCache[grid.index];
      if (!cached) {
        cached = data.gridCache[grid.index] = {
          href: shadeImage(grid.values, grid.size),
          path: contourPath(grid.values, grid.size),
        };
      }
      drawShadeFromGrid(layer("shade"), cached.href, grid.size);
      drawContour(layer("lines"), grid.values, grid.size, cls, null, cached.path);
    } else if (w && run.linear) {
      var b = bias(run);
      var L = [w[0], w[1], w[2] * b];
      var pos = clipHalfPlane(boxPolygon(), L[0], L[1], L[2]);
      var neg = clipHalfPlane(boxPolygon(), -L[0], -L[1], -L[2]);
      if (L[0] !== 0 || L[1] !== 0) {
        if (pos.length > 2) el("polygon", { points: polygonPoints(pos), class: "shade-pos" }, layer("shade"));
        if (neg.length > 2) el("polygon", { points: polygonPoints(neg), class: "shade-neg" }, layer("shade"));
        drawLine(layer("lines"), L[0], L[1], L[2], cls);
      }
    } else if (w && run.features) {
      var S = 41;
      var vals = evaluateOnGrid(run, w, S); // drawing only: the weights are the server's
      if (vals) drawContour(layer("lines"), vals, S, cls);
    }
    var pts = (run.request && run.request.points) || state.points;
    var labels = (run.request && run.request.labels) || state.labels;
    if (data.support) {
      var support = supportOf(data.support, c);
      Object.keys(support.current).forEach(function (k) {
        var p = pts[+k];
        if (p) el("circle", { cx: px(p[0]), cy: py(p[1]), r: 24, class: "sv-ring" }, layer("sv"));
      });
    }
    pts.forEach(function (p, k) {
      var g = el("g", { transform: "translate(" + px(p[0]).toFixed(2) + "," + py(p[1]).toFixed(2) + ") scale(1.6)" }, layer("points"));
      pointShape(labels[k], g);
    });
    if (c > 0 && data.pattern) {
      var at = pts[data.pattern[c - 1]];
      if (at) el("circle", { cx: px(at[0]), cy: py(at[1]), r: 30, class: "current-ring" }, layer("highlight"));
    }
  }

  function renderPanels() {
    var divs = $("panels").querySelectorAll(".compare-panel");
    Array.prototype.forEach.call(divs, function (div) {
      renderPanel(div, panelData(+div.dataset.index));
    });
  }

  // ------------------------------------------------------------------ exercises
  function renderScore() {
    var ex = state.exercise;
    setData($("score"), [ex.right, ex.asked]);
    $("score").textContent = ex.right + " / " + ex.asked;
  }

  function setVerdict(value, text) {
    var out = $("verdict");
    setData(out, value);
    out.textContent = text || "";
    out.hidden = !text;
  }

  /** Exercise mode on (from the chosen set) or off; the score starts again. */
  function setExercise(on) {
    var ex = state.exercise;
    ex.on = on;
    ex.right = 0;
    ex.asked = 0;
    $("exercise").checked = on;
    cancelQuestion();
    renderScore();
    setVerdict(null, "");
    if (!on) return;
    stopPlaying();
    var s = state.settings;
    if (ex.set && !state.staticData && loadPreset(ex.set)) {
      // the sets are the notes' way: online, eta 1, the threshold input -1, in order
      s.algorithm = "online";
      s.eta = 1;
      s.bias = -1;
      s.shuffle = false;
      s.featureMap = false;
      writeControls();
      scheduleRun(0);
    } else if (state.run) {
      setCursor(0);
    }
  }

  /** Whether Step asks first: exercises on, a weight vector to ask for, and a next row. */
  function askable() {
    var run = state.run;
    if (!run || !run.weights || !run.rows) {
      setVerdict(null, "Exercises ask for the weight vector: choose online, batch, averaged or voted.");
      return false;
    }
    return state.cursor < run.n_rows;
  }

  function ask() {
    var run = state.run;
    var c = state.cursor;
    stopPlaying();
    setVerdict(null, ""); // each question starts with a clean verdict
    var idx = run.rows.pattern[c];
    var pts = (run.request && run.request.points) || state.points;
    var labels = (run.request && run.request.labels) || state.labels;
    var names = run.features.concat(["x0"]);
    var mapped = run.features.length > 2 ? " (features " + run.features.join(", ") + ")" : "";
    $("question-text").textContent =
      "Presentation " + (c + 1) + ": pattern " + (idx + 1) + ", x = " + fmtVector(pts[idx]) + mapped +
      ", bias input x0 = " + fmt(bias(run)) + ", t = " + fmt(labels[idx]) + ", \u03b7 = " + fmt(run.eta) +
      ". Now w = " + fmtVector(run.weights[c]) + ". What is w after this presentation? (" + names.join(", ") + ")";
    state.exercise.asking = true;
    $("question").hidden = false;
    $("answer").value = "";
    $("answer").focus();
  }

  function cancelQuestion() {
    state.exercise.asking = false;
    $("question").hidden = true;
  }

  /** The numbers of an answer ("1, 1, -1", "(1 1 −1)"), or null. */
  function parseAnswer(text) {
    var parts = text
      .replace(/[()[\]]/g, " ")
      .replace(/\u2212/g, "-")
      .split(/[\s,;]+/)
      .filter(Boolean);
    var values = parts.map(Number);
    return values.length && values.every(isNum) ? values : null;
  }

  /** The notes' rule applied to row r, in the engine's numbers (its activation, its update). */
  function ruleText(run, r) {
    var act = run.rows.activation[r];
    var text = "t w\u00b7x = " + fmt(act);
    if (!run.rows.updated[r]) return text + " > 0: no mistake, w stays.";
    text += " \u2264 0: a mistake, so w \u2190 w + \u03b7 t x, \u0394w = " + fmtVector(run.rows.delta[r]) + ".";
    if (run.algorithm === "batch") text += " Batch mode: the epoch's changes are added at its end.";
    return text;
  }

  function checkAnswer() {
    var run = state.run;
    var ex = state.exercise;
    if (!ex.asking || !run) return;
    var c = state.cursor;
    var want = run.weights[c + 1];
    var got = parseAnswer($("answer").value);
    if (!got || got.length !== want.length) {
      setVerdict(null, "Give the " + want.length + " numbers of w, separated by commas (" + run.features.concat(["x0"]).join(", ") + ").");
      $("answer").focus();
      return;
    }
    var right = got.every(function (v, k) {
      return Math.abs(v - want[k]) <= 1e-6 * Math.max(1, Math.abs(want[k]));
    });
    ex.asked++;
    if (right) ex.right++;
    renderScore();
    if (right) {
      setVerdict("right", "Right: w = " + fmtVector(want) + ". " + ruleText(run, c));
    } else {
      setVerdict("wrong", "Not quite: the engine's w after it is " + fmtVector(want) + ", from w = " + fmtVector(run.weights[c]) + ". " + ruleText(run, c));
    }
    cancelQuestion();
    setCursor(c + 1);
  }

  // ------------------------------------------------------------------ status
  function renderStatus() {
    var run = state.run;
    var st = $("status");
    var note = $("note");
    var stateName;
    var text;
    if (state.pending && !run) {
      stateName = "pending";
      text = "Training…";
    } else if (!run) {
      stateName = "empty";
      text = "No run: add points of both classes.";
    } else {
      var c = mainCursor();
      var N = run.n_rows;
      if (state.cursor >= run.end) {
        stateName = run.converged ? "converged" : "stopped";
        var epochs = countAtMost(run.epochEnds, c);
        text = run.converged
          ? "Converged: epoch " + epochs + " made no mistake (" + run.mistakesUpTo[N] + " update(s) in all)."
          : "Stopped after " + epochs + " epoch(s) without an epoch free of mistakes.";
      } else {
        stateName = "running";
        var epoch = run.rows && run.rows.epoch && c > 0 ? run.rows.epoch[c - 1] : 1;
        text = c === 0 ? "Ready: press Step, Epoch or Play." : "Presentation " + c + " of " + N + ", epoch " + epoch + ".";
        if (c >= N) text = "This learner is done (" + N + " presentations); the panels go on.";
      }
    }
    st.dataset.state = stateName;
    st.textContent = text;
    var noteText = run && run.note ? String(run.note) : "";
    note.textContent = noteText;
    note.hidden = !noteText;
    var atEnd = !run || state.cursor >= run.end;
    ["step", "epoch"].forEach(function (id) {
      // dimmed, not disabled: a press at the end simply does nothing
      $(id).classList.toggle("at-end", atEnd);
    });
  }

  // ------------------------------------------------------------------ step table
  function vectorCell(v, cls) {
    var td = document.createElement("td");
    td.className = cls + " vec";
    if (!v) {
      td.textContent = "";
      return td;
    }
    v.forEach(function (x) {
      var span = document.createElement("span");
      span.textContent = fmt(x);
      td.appendChild(span);
    });
    return td;
  }

  function textCell(text, cls) {
    var td = document.createElement("td");
    td.className = cls;
    td.textContent = text;
    return td;
  }

  function renderTraceHead() {
    var run = state.run;
    var head = $("trace-head");
    clear(head);
    if (!run) return;
    var tr = document.createElement("tr");
    var names = run.features ? run.features.concat(["x0"]) : [];
    var cols;
    if (run.primal) {
      cols = [
        ["a/a", "pattern (1-based)"],
        ["w", "weights before the presentation: " + names.join(", ")],
        ["t x", "target times the augmented pattern"],
        ["t w·x", "target times the activation"],
        ["Update", "t w·x ≤ 0 is a mistake"],
        ["Δw", run.algorithm === "batch" ? "this row's share of the epoch's update" : "change of w"],
      ];
    } else {
      cols = [
        ["a/a", "pattern (1-based)"],
        ["t f(x)", "target times the kernel expansion"],
        ["Update", "t f(x) ≤ 0 is a mistake"],
        ["α", "the pattern's coefficient after the row"],
      ];
    }
    cols.forEach(function (col) {
      var th = document.createElement("th");
      th.scope = "col";
      th.textContent = col[0];
      th.title = col[1];
      tr.appendChild(th);
    });
    head.appendChild(tr);
  }

  function traceRow(run, r) {
    var rows = run.rows;
    var tr = document.createElement("tr");
    var epoch = rows.epoch ? rows.epoch[r] : null;
    tr.dataset.row = r;
    if (epoch !== null) tr.dataset.epoch = epoch;
    var upd = !!rows.updated[r];
    tr.dataset.updated = upd ? "true" : "false";
    if (upd) tr.classList.add("updated");
    if (r === 0 || (rows.epoch && rows.epoch[r] !== rows.epoch[r - 1])) {
      tr.classList.add("epoch-start");
      tr.title = "epoch " + epoch;
    }
    tr.appendChild(textCell(String(rows.pattern[r] + 1), "col-aa"));
    if (run.primal) {
      tr.appendChild(vectorCell(run.weights[r], "col-w"));
      tr.appendChild(vectorCell(rows.tx ? rows.tx[r] : null, "col-tx"));
      tr.appendChild(textCell(fmt(rows.activation[r]), "col-act num"));
      tr.appendChild(textCell(upd ? "YES" : "NO", "col-update"));
      tr.appendChild(vectorCell(rows.delta ? rows.delta[r] : null, "col-dw"));
    } else {
      tr.appendChild(textCell(fmt(rows.activation[r]), "col-act num"));
      tr.appendChild(textCell(upd ? "YES" : "NO", "col-update"));
      var alpha = run.kernel && run.kernel.alpha ? run.kernel.alpha[r] : null;
      tr.appendChild(textCell(fmt(alpha), "col-alpha num"));
    }
    return tr;
  }

  function renderTrace() {
    var run = state.run;
    var body = $("trace");
    var t = state.trace;
    var c = mainCursor();
    if (t.run !== run) {
      renderTraceHead();
      clear(body);
      t.run = run;
      t.first = 0;
      t.end = 0;
    }
    if (!run || !run.rows) {
      clear(body);
      t.first = t.end = 0;
      $("trace-note").hidden = true;
      return;
    }
    var first = Math.max(0, c - MAX_TRACE_ROWS);
    if (c < t.end || first >= t.end || first < t.first) {
      clear(body);
      t.first = t.end = first;
    }
    var frag = document.createDocumentFragment();
    for (var r = t.end; r < c; r++) frag.appendChild(traceRow(run, r));
    body.appendChild(frag);
    t.end = c;
    while (t.first < first && body.firstChild) {
      body.removeChild(body.firstChild);
      t.first++;
    }
    var old = body.querySelector("tr.current");
    if (old) old.classList.remove("current");
    if (body.lastChild) body.lastChild.classList.add("current");
    var note = $("trace-note");
    note.hidden = first === 0;
    note.textContent = first ? "(the last " + MAX_TRACE_ROWS + " of " + c + " rows)" : "";
    // keep the newest row in view, once per frame (reading the height forces a layout)
    if (!state.scrollQueued) {
      state.scrollQueued = true;
      requestAnimationFrame(function () {
        state.scrollQueued = false;
        var scroller = $("trace-scroll");
        scroller.scrollTop = scroller.scrollHeight;
      });
    }
  }

  // ------------------------------------------------------------------ cursor
  function setCursor(c) {
    var run = state.run;
    if (!run) return;
    state.cursor = Math.max(0, Math.min(run.end, c));
    renderCursor();
  }

  function renderCursor() {
    drawModel();
    renderReadouts();
    renderStepMath();
    renderTrace();
    renderStatus();
    renderPanels();
    renderHistory();
  }

  function canMove() {
    return state.run && !state.pending && state.cursor < state.run.end;
  }

  function step() {
    if (!canMove()) return false;
    if (state.exercise.on && askable()) {
      ask();
      return false;
    }
    setCursor(state.cursor + 1);
    return true;
  }

  function back() {
    if (!state.run || state.pending || state.cursor <= 0) return;
    stopPlaying();
    cancelQuestion();
    setCursor(state.cursor - 1);
  }

  function toEpochEnd() {
    if (!canMove()) return;
    cancelQuestion();
    var ends = state.run.allEpochEnds;
    var next = ends[countAtMost(ends, state.cursor)];
    setCursor(next === undefined ? state.run.end : next);
  }

  function reset() {
    stopPlaying();
    cancelQuestion();
    if (state.run) setCursor(0);
  }

  // ------------------------------------------------------------------ history slider
  function renderHistory() {
    var slider = $("history");
    var run = state.run;
    slider.max = String(run ? run.end : 0);
    slider.value = String(state.cursor);
    slider.disabled = !run;
    slider.setAttribute("aria-valuetext", run ? state.cursor + " of " + run.end + " presentations" : "no run");
  }

  var SPEEDS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256]; // presentations per second

  function speed() {
    var v = parseInt($("speed").value, 10) || 4;
    return SPEEDS[Math.max(1, Math.min(SPEEDS.length, v)) - 1];
  }

  function renderSpeed() {
    $("speed-value").textContent = fmt(speed()) + "/s";
  }

  function startPlaying() {
    if (!state.run || state.pending) return;
    cancelQuestion();
    if (state.cursor >= state.run.end) setCursor(0);
    state.playing = true;
    $("play").textContent = "Pause";
    $("play").setAttribute("aria-pressed", "true");
    schedulePlay();
  }

  function schedulePlay() {
    clearInterval(state.playTimer);
    var rate = speed();
    var perTick = Math.max(1, Math.round(rate / 30));
    state.playTimer = setInterval(function () {
      if (!state.run || state.pending || state.cursor >= state.run.end) {
        stopPlaying();
        return;
      }
      setCursor(state.cursor + perTick);
      if (state.cursor >= state.run.end) stopPlaying();
    }, (1000 * perTick) / rate);
  }

  function stopPlaying() {
    clearInterval(state.playTimer);
    state.playTimer = null;
    state.playing = false;
    $("play").textContent = "Play";
    $("play").setAttribute("aria-pressed", "false");
  }

  // ------------------------------------------------------------------ requests
  function ApiError(message) {
    this.message = message;
  }

  /** The kernel perceptrons a run trains: the page's learner and the panels'. */
  function kernelRuns() {
    var panels = state.compare.filter(function (name) {
      return /kernel$/.test(name);
    }).length;
    return panels + (state.settings.algorithm === "kernel" ? 1 : 0);
  }

  /** The epochs to ask for n points: what runs.page_epochs computes from the same limits. */
  function epochsFor(n) {
    var most = Math.min(limits.page_epochs || PAGE_MAX_EPOCHS, limits.max_epochs);
    var kernels = kernelRuns();
    if (kernels) {
      // a kernel reply holds every coefficient after every presentation, per kernel run
      most = Math.min(most, Math.floor(limits.max_kernel_cells / Math.max(1, n * n * kernels)));
    }
    return Math.max(1, Math.min(most, Math.floor(limits.max_presentations / Math.max(1, n))));
  }

  /** The server's support spells [sample, start, end) read at cursor c: the support
   * vectors then, and the samples that were support vectors before and are no more. */
  function supportAt(run, c) {
    return supportOf(run.kernel.support, c);
  }

  function buildRequest() {
    var s = state.settings;
    return {
      points: state.points.map(function (p) {
        return [p[0], p[1]];
      }),
      labels: state.labels.slice(),
      algorithm: s.algorithm,
      eta: s.eta,
      bias: s.bias,
      shuffle: s.shuffle,
      seed: s.seed,
      feature_map: s.featureMap,
      kernel: s.kernel,
      gamma: s.gamma,
      degree: s.degree,
      budget: s.budget,
      budget_policy: s.budgetPolicy,
      compare: state.compare.slice(),
      epochs: epochsFor(state.points.length),
    };
  }

  /** Why the server would refuse the current state, checked before asking it; null when fine. */
  function problemWithState() {
    var n = state.points.length;
    if (n === 0) return "No points: click in the plot to add some (both classes).";
    if (n > limits.max_points) return "Too many points (" + n + "): at most " + limits.max_points + ".";
    var pos = state.labels.filter(function (t) {
      return t > 0;
    }).length;
    if (pos === 0 || pos === n) {
      var missing = pos === 0 ? "+1" : MINUS + "1";
      return "Only one class: add a point of class " + missing + " (shift-click adds " + MINUS + "1).";
    }
    var bad = invalidSettings();
    if (bad) return bad;
    return null;
  }

  function invalidSettings() {
    var s = state.settings;
    var problems = [];
    if (!(isNum(s.eta) && s.eta > 0)) problems.push("η must be a positive number");
    if (!(Number.isInteger(s.seed) && s.seed >= 0 && s.seed <= limits.max_seed)) {
      problems.push("the seed must be a whole number from 0 to " + limits.max_seed);
    }
    // checked in every mode: the server checks them whatever the algorithm
    if (!(isNum(s.gamma) && s.gamma > 0)) problems.push("γ must be a positive number");
    if (!(Number.isInteger(s.degree) && s.degree >= 1 && s.degree <= limits.max_degree)) {
      problems.push("the degree must be a whole number from 1 to " + limits.max_degree);
    }
    if (!(Number.isInteger(s.budget) && s.budget >= 0 && s.budget <= limits.max_points)) {
      problems.push("the budget must be a whole number from 0 (none) to " + limits.max_points);
    }
    return problems.length ? problems.join("; ") + "." : null;
  }

  /** Resolves after `ms`, or rejects when `signal` aborts (a newer run replaced this one). */
  function pause(ms, signal) {
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(resolve, ms);
      if (signal) {
        signal.addEventListener("abort", function () {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      }
    });
  }

  /** Post a run; a 503 (the server's queue is full) is posted again after its Retry-After,
   * up to BUSY_RETRIES times, `onBusy(message)` showing the server's word meanwhile. */
  function postRun(body, signal, onBusy, tries) {
    tries = tries || 0;
    return fetch("api/run", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: signal,
    }).then(function (resp) {
      return resp.text().then(function (text) {
        var data = null;
        try {
          data = JSON.parse(text);
        } catch (e) {
          data = null;
        }
        var message = (data && data.error) || "The server refused the run (HTTP " + resp.status + ").";
        if (resp.status === 503 && tries < BUSY_RETRIES) {
          var wait = Number(resp.headers.get("Retry-After"));
          if (!(isFinite(wait) && wait >= 0)) wait = 2;
          if (onBusy) onBusy(message);
          return pause(Math.min(wait, 30) * 1000, signal).then(function () {
            return postRun(body, signal, onBusy, tries + 1);
          });
        }
        if (resp.status === 503) {
          throw new ApiError("The playground is still busy with other runs after " + (tries + 1) + " tries: change a setting, or reload the page, to try again.");
        }
        if (!resp.ok) {
          throw new ApiError(message);
        }
        if (!data || typeof data !== "object") throw new ApiError("The server's answer was not JSON.");
        if (typeof data.error === "string") throw new ApiError(data.error);
        return data;
      });
    });
  }

  function abortInFlight() {
    if (state.controller) {
      state.controller.abort();
      state.controller = null;
    }
  }

  /** Ask for a new run after `delay` ms (drags and typing are debounced); resets the cursor. */
  function scheduleRun(delay) {
    stopPlaying();
    setReady(false);
    updateURL();
    clearTimeout(state.debounce);
    state.debounce = setTimeout(requestRun, delay || 0);
  }

  function requestRun() {
    clearTimeout(state.debounce);
    state.debounce = null;
    stopPlaying();
    updateURL();
    if (state.staticData) {
      selectStaticRun();
      return;
    }
    var seq = ++state.seq;
    abortInFlight();
    var problem = problemWithState();
    if (problem) {
      finishRun(null, problem);
      return;
    }
    var body = buildRequest();
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    state.controller = controller;
    state.pending = true;
    setReady(false);
    renderStatus();
    var onBusy = function (message) {
      if (seq === state.seq) showMessage(message);
    };
    postRun(body, controller ? controller.signal : undefined, onBusy).then(
      function (data) {
        if (seq !== state.seq) return;
        state.controller = null;
        finishRun(prepareRun(data, body), "");
      },
      function (err) {
        if (seq !== state.seq) return; // superseded (or aborted) by a newer request
        state.controller = null;
        var text =
          err instanceof ApiError
            ? err.message
            : "Could not reach the playground server (" + (err && err.message) + "). Is `rosenblatt playground` still running?";
        finishRun(null, text);
      },
    );
  }

  function finishRun(run, message) {
    var keep = state.keepCursor ? state.cursor : 0;
    state.keepCursor = false;
    state.pending = false;
    state.run = run;
    state.cursor = run ? Math.min(keep, run.end) : 0;
    cancelQuestion();
    buildPanels();
    state.runCount++;
    showMessage(message || state.urlNote || "");
    state.urlNote = "";
    drawPoints();
    renderCursor();
    document.body.dataset.runs = String(state.runCount);
    setReady(true);
  }

  // ------------------------------------------------------------------ students' files, lessons
  /** A CSV file chosen in #upload: the server reads it as the library reads data files;
   * its points replace the page's, or its one-line refusal is shown. */
  function uploadFile(file) {
    if (!file || state.staticData) return;
    file.text().then(function (text) {
      return fetch("api/points", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: file.name, text: text }),
      }).then(function (resp) {
        return resp.json().then(function (data) {
          if (!resp.ok || data.error) throw new ApiError(data.error || "The server refused the file (HTTP " + resp.status + ").");
          return data;
        });
      });
    }).then(
      function (data) {
        state.points = data.points.map(function (p) {
          return [p[0], p[1]];
        });
        state.labels = data.labels.slice();
        markEdited();
        drawPoints();
        state.urlNote = data.note || "";
        setUploadState("loaded", data.note);
        scheduleRun(0);
      },
      function (err) {
        var text = err instanceof ApiError ? err.message : "Could not read the file (" + (err && err.message) + ").";
        setUploadState("refused", text);
        showMessage(text);
      },
    );
  }

  function setUploadState(value, text) {
    var input = $("upload");
    input.dataset.state = value;
    input.dataset.note = text || "";
    input.value = "";
  }

  /** The page's state as a notebook (POST api/lesson), saved as lesson.ipynb. */
  function downloadLesson() {
    if (state.staticData) return;
    var problem = problemWithState();
    if (problem) {
      showMessage(problem);
      return;
    }
    var body = buildRequest();
    body.cursor = state.cursor;
    body.exercises = state.exercise.on;
    fetch("api/lesson", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    })
      .then(function (resp) {
        if (!resp.ok) {
          return resp.json().then(function (data) {
            throw new ApiError(data.error || "The server refused the lesson (HTTP " + resp.status + ").");
          });
        }
        return resp.blob();
      })
      .then(
        function (blob) {
          var link = document.createElement("a");
          link.href = URL.createObjectURL(blob);
          link.download = "lesson.ipynb";
          document.body.appendChild(link);
          link.click();
          setTimeout(function () {
            URL.revokeObjectURL(link.href);
            link.remove();
          }, 0);
        },
        function (err) {
          showMessage(err instanceof ApiError ? err.message : "Could not write the lesson (" + (err && err.message) + ").");
        },
      );
  }

  // ------------------------------------------------------------------ static copies
  function staticRuns() {
    return (state.staticData && state.staticData.runs) || [];
  }

  function selectStaticRun() {
    var runs = staticRuns();
    var alg = state.settings.algorithm;
    var entry = runs.filter(function (r) {
      return r.request && r.request.algorithm === alg;
    })[0];
    if (!entry && runs.length) {
      entry = runs[0];
      state.settings.algorithm = entry.request.algorithm;
    }
    if (!entry) {
      finishRun(null, "This static copy holds no run.");
      return;
    }
    var req = entry.request;
    state.points = (req.points || []).map(function (p) {
      return [p[0], p[1]];
    });
    state.labels = (req.labels || []).slice();
    var s = state.settings;
    if (isNum(req.eta)) s.eta = req.eta;
    if (req.bias === 1 || req.bias === -1) s.bias = req.bias;
    s.shuffle = !!req.shuffle;
    if (isNum(req.seed)) s.seed = req.seed;
    s.featureMap = !!req.feature_map;
    if (req.kernel === "rbf" || req.kernel === "poly") s.kernel = req.kernel;
    if (isNum(req.gamma)) s.gamma = req.gamma;
    if (isNum(req.degree)) s.degree = req.degree;
    if (Number.isInteger(req.budget)) s.budget = req.budget;
    if (["stop", "random", "forgetron"].indexOf(req.budget_policy) >= 0) s.budgetPolicy = req.budget_policy;
    writeControls();
    finishRun(prepareRun(entry.response, req), "");
    updateURL();
  }

  // ------------------------------------------------------------------ URL state
  function encodeValue(s) {
    return encodeURIComponent(s).replace(/%2C/gi, ",").replace(/%3B/gi, ";");
  }

  function encodePoints() {
    return state.points
      .map(function (p, k) {
        return round2(p[0]) + "," + round2(p[1]) + "," + (state.labels[k] > 0 ? 1 : -1);
      })
      .join(";");
  }

  function decodePoints(text) {
    var points = [];
    var labels = [];
    if (text.trim() === "") return { points: points, labels: labels };
    var parts = text.split(";");
    for (var k = 0; k < parts.length; k++) {
      if (parts[k].trim() === "") continue;
      var f = parts[k].split(",").map(Number);
      if (f.length !== 3 || !f.every(isNum) || (f[2] !== 1 && f[2] !== -1)) return null;
      points.push([f[0], f[1]]);
      labels.push(f[2]);
    }
    return { points: points, labels: labels };
  }

  function currentQuery() {
    var s = state.settings;
    var pairs = [];
    if (state.staticData) {
      pairs.push(["algorithm", s.algorithm]);
    } else {
      pairs.push(
        ["preset", state.preset],
        ["algorithm", s.algorithm],
        ["eta", String(s.eta)],
        ["bias", String(s.bias)],
        ["shuffle", s.shuffle ? "1" : "0"],
        ["seed", String(s.seed)],
        ["map", s.featureMap ? "1" : "0"],
        ["kernel", s.kernel],
        ["gamma", String(s.gamma)],
        ["degree", String(s.degree)],
        ["budget", String(s.budget)],
        ["policy", s.budgetPolicy],
      );
      if (state.edited) pairs.push(["points", encodePoints()]);
      if (state.compare.length) pairs.push(["compare", state.compare.join(",")]);
    }
    if (state.showMaxMargin) pairs.push(["maxmargin", "1"]);
    return pairs
      .map(function (p) {
        return p[0] + "=" + encodeValue(p[1]);
      })
      .join("&");
  }

  function updateURL() {
    var query = "?" + currentQuery();
    if (location.search !== query) {
      try {
        history.replaceState(null, "", location.pathname + query + location.hash);
      } catch (e) {
        // some browsers refuse history changes on file:// pages; the link below still works
      }
    }
    var link = $("permalink");
    var href;
    try {
      href = new URL(query, location.href).href;
    } catch (e) {
      href = query;
    }
    link.href = href;
  }

  function readURL() {
    var q = new URLSearchParams(location.search);
    var s = state.settings;
    var notes = [];
    var num = function (name, ok) {
      if (!q.has(name)) return undefined;
      var v = Number(q.get(name));
      if (q.get(name).trim() !== "" && isNum(v) && (!ok || ok(v))) return v;
      notes.push(name);
      return undefined;
    };
    if (q.has("preset")) state.preset = q.get("preset");
    if (q.has("algorithm")) {
      if (ALGORITHMS.indexOf(q.get("algorithm")) >= 0) s.algorithm = q.get("algorithm");
      else notes.push("algorithm");
    }
    var eta = num("eta", function (v) {
      return v > 0;
    });
    if (eta !== undefined) s.eta = eta;
    var b = num("bias", function (v) {
      return v === 1 || v === -1;
    });
    if (b !== undefined) s.bias = b;
    if (q.has("shuffle")) s.shuffle = q.get("shuffle") === "1" || q.get("shuffle") === "true";
    var seed = num("seed", function (v) {
      return Number.isInteger(v) && v >= 0;
    });
    if (seed !== undefined) s.seed = seed;
    if (q.has("map")) s.featureMap = q.get("map") === "1" || q.get("map") === "true";
    if (q.has("kernel")) {
      if (q.get("kernel") === "rbf" || q.get("kernel") === "poly") s.kernel = q.get("kernel");
      else notes.push("kernel");
    }
    var gamma = num("gamma", function (v) {
      return v > 0;
    });
    if (gamma !== undefined) s.gamma = gamma;
    var degree = num("degree", function (v) {
      return Number.isInteger(v) && v >= 1;
    });
    if (degree !== undefined) s.degree = degree;
    var budget = num("budget", function (v) {
      return Number.isInteger(v) && v >= 0;
    });
    if (budget !== undefined) s.budget = budget;
    if (q.has("policy")) {
      if (["stop", "random", "forgetron"].indexOf(q.get("policy")) >= 0) s.budgetPolicy = q.get("policy");
      else notes.push("policy");
    }
    if (q.has("maxmargin")) state.showMaxMargin = q.get("maxmargin") === "1";
    if (q.has("compare")) {
      var names = q.get("compare").split(",").filter(Boolean);
      var known = names.filter(function (name) {
        return COMPARE.indexOf(name) >= 0;
      });
      if (known.length !== names.length) notes.push("compare");
      state.compare = known; // held to the server's cap once its limits come
    }
    var points = null;
    if (q.has("points")) {
      points = decodePoints(q.get("points"));
      if (!points) notes.push("points");
    }
    return { points: points, notes: notes };
  }

  // ------------------------------------------------------------------ controls
  function writeControls() {
    var s = state.settings;
    $("algorithm").value = s.algorithm;
    $("eta").value = String(s.eta);
    $("bias-input").value = String(s.bias);
    $("shuffle").checked = s.shuffle;
    $("seed").value = String(s.seed);
    $("feature-map").checked = s.featureMap;
    $("kernel").value = s.kernel;
    $("gamma").value = String(s.gamma);
    $("degree").value = String(s.degree);
    $("budget").value = String(s.budget);
    $("budget-policy").value = s.budgetPolicy;
    $("show-max-margin").checked = state.showMaxMargin;
    writePresetSelect();
    writeClassToggle();
    updateControlVisibility();
  }

  function writePresetSelect() {
    var sel = $("preset");
    if (state.edited || !state.presets || !(state.preset in state.presets)) {
      $("preset-edited").hidden = false;
      sel.value = "";
    } else {
      $("preset-edited").hidden = true;
      sel.value = state.preset;
    }
  }

  function writeClassToggle() {
    var btn = $("class-toggle");
    var pos = state.newClass > 0;
    btn.dataset.value = pos ? "1" : "-1";
    btn.setAttribute("aria-pressed", pos ? "false" : "true");
    clear(btn);
    btn.appendChild(document.createTextNode("new point: "));
    var span = document.createElement("span");
    span.className = pos ? "class-pos" : "class-neg";
    span.textContent = pos ? "● +1" : "■ " + MINUS + "1";
    btn.appendChild(span);
  }

  function updateControlVisibility() {
    var kernel = state.settings.algorithm === "kernel";
    document.querySelectorAll("[data-kernel]").forEach(function (node) {
      node.hidden = !kernel;
    });
    updateLegend();
  }

  function populatePresets() {
    var sel = $("preset");
    var edited = $("preset-edited");
    Array.prototype.slice.call(sel.options).forEach(function (opt) {
      if (opt !== edited) sel.removeChild(opt);
    });
    state.presetOrder.forEach(function (name) {
      var opt = document.createElement("option");
      opt.value = name;
      var title = state.presets[name] && state.presets[name].title;
      opt.textContent = title ? name + " — " + title : name;
      sel.insertBefore(opt, edited);
    });
  }

  function loadPreset(name) {
    var p = state.presets && state.presets[name];
    if (!p) return false;
    state.preset = name;
    state.points = p.points.map(function (q) {
      return clampToView([q[0], q[1]]);
    });
    state.labels = p.labels.map(function (t) {
      return t > 0 ? 1 : -1;
    });
    state.edited = false;
    writePresetSelect();
    drawPoints();
    return true;
  }

  function markEdited() {
    state.edited = true;
    writePresetSelect();
  }

  function readNumberInput(id, integer) {
    var raw = $(id).value;
    var v = raw.trim() === "" ? NaN : Number(raw);
    var ok = isNum(v) && (!integer || Number.isInteger(v));
    $(id).setAttribute("aria-invalid", ok ? "false" : "true");
    return v;
  }

  function onSettingsChanged(delay) {
    var s = state.settings;
    s.algorithm = $("algorithm").value;
    s.eta = readNumberInput("eta", false);
    s.bias = $("bias-input").value === "1" ? 1 : -1;
    s.shuffle = $("shuffle").checked;
    s.seed = readNumberInput("seed", true);
    s.featureMap = $("feature-map").checked;
    s.kernel = $("kernel").value;
    s.gamma = readNumberInput("gamma", false);
    s.degree = readNumberInput("degree", true);
    s.budget = readNumberInput("budget", true);
    s.budgetPolicy = $("budget-policy").value;
    updateControlVisibility();
    scheduleRun(delay);
  }

  function bindControls() {
    $("preset").addEventListener("change", function () {
      var name = $("preset").value;
      if (!name) return;
      if (loadPreset(name)) scheduleRun(0);
    });
    $("class-toggle").addEventListener("click", function () {
      state.newClass = state.newClass > 0 ? -1 : 1;
      writeClassToggle();
    });
    $("clear").addEventListener("click", function () {
      if (state.staticData) return;
      state.points = [];
      state.labels = [];
      markEdited();
      drawPoints();
      scheduleRun(0);
    });
    $("algorithm").addEventListener("change", function () {
      if (state.staticData) {
        state.settings.algorithm = $("algorithm").value;
        updateControlVisibility();
        scheduleRun(0);
        return;
      }
      onSettingsChanged(0);
    });
    ["bias-input", "shuffle", "feature-map", "kernel", "budget-policy"].forEach(function (id) {
      $(id).addEventListener("change", function () {
        onSettingsChanged(0);
      });
    });
    ["eta", "seed", "gamma", "degree", "budget"].forEach(function (id) {
      $(id).addEventListener("input", function () {
        onSettingsChanged(350);
      });
      $(id).addEventListener("change", function () {
        onSettingsChanged(0);
      });
    });
    $("show-max-margin").addEventListener("change", function () {
      state.showMaxMargin = $("show-max-margin").checked;
      updateURL();
      drawModel();
    });
    $("upload").addEventListener("change", function () {
      uploadFile($("upload").files && $("upload").files[0]);
    });
    $("lesson").addEventListener("click", downloadLesson);
    $("step").addEventListener("click", step);
    $("epoch").addEventListener("click", toEpochEnd);
    $("history").addEventListener("input", function () {
      stopPlaying();
      cancelQuestion();
      setCursor(parseInt($("history").value, 10) || 0);
    });
    $("compare").addEventListener("change", function () {
      var name = $("compare").value;
      $("compare").value = "";
      if (!name || state.compare.length >= MAX_PANELS) return;
      state.compare.push(name);
      state.keepCursor = true; // the page's learner is the same run: stay where it was
      scheduleRun(0);
    });
    $("exercise").addEventListener("change", function () {
      setExercise($("exercise").checked);
    });
    $("exercise-set").addEventListener("change", function () {
      state.exercise.set = $("exercise-set").value;
      if (state.exercise.on) setExercise(true);
    });
    $("check").addEventListener("click", checkAnswer);
    $("answer").addEventListener("keydown", function (e) {
      if (e.key === "Enter") {
        e.preventDefault();
        checkAnswer();
      }
    });
    $("reset").addEventListener("click", reset);
    $("play").addEventListener("click", function () {
      if (state.playing) stopPlaying();
      else startPlaying();
    });
    $("speed").addEventListener("input", function () {
      renderSpeed();
      if (state.playing) schedulePlay();
    });
    $("permalink").addEventListener("click", function (e) {
      e.preventDefault();
      updateURL();
      var href = $("permalink").href;
      var out = $("permalink-text");
      out.hidden = false;
      out.textContent = href;
      var done = function (copied) {
        out.textContent = (copied ? "copied: " : "") + href;
      };
      try {
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(href).then(
            function () {
              done(true);
            },
            function () {
              done(false);
            },
          );
        }
      } catch (err) {
        done(false);
      }
    });
    document.addEventListener("keydown", onKey);
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var isButton = tag === "BUTTON" || tag === "A";
    switch (e.key) {
      case "ArrowRight":
        step();
        e.preventDefault();
        break;
      case "ArrowLeft":
        back();
        e.preventDefault();
        break;
      case "e":
      case "E":
        toEpochEnd();
        break;
      case "p":
      case "P":
        if (state.playing) stopPlaying();
        else startPlaying();
        break;
      case " ":
        if (isButton) return;
        if (state.playing) stopPlaying();
        else startPlaying();
        e.preventDefault();
        break;
      case "r":
      case "R":
      case "Home":
        reset();
        break;
      default:
    }
  }

  // ------------------------------------------------------------------ pointer: add and drag points
  function svgPoint(e) {
    var svg = $("plot");
    var m = svg.getScreenCTM();
    if (!m) return null;
    var p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  function bindPointer() {
    var svg = $("plot");
    svg.addEventListener("pointerdown", function (e) {
      if (state.staticData || !state.presets) return;
      if (e.pointerType === "mouse" && e.button !== 0) return;
      var target = e.target.closest ? e.target.closest(".point") : null;
      if (target && e.altKey) return; // alt-click deletes (see click below)
      if (target) {
        state.drag = {
          index: +target.dataset.index,
          pointerId: e.pointerId,
          x: e.clientX,
          y: e.clientY,
          moved: false,
          node: target,
        };
      } else {
        state.press = { pointerId: e.pointerId, x: e.clientX, y: e.clientY, shift: e.shiftKey };
      }
      try {
        svg.setPointerCapture(e.pointerId);
      } catch (err) {
        // capture is a convenience
      }
      e.preventDefault();
    });
    svg.addEventListener("pointermove", function (e) {
      var d = state.drag;
      if (!d || d.pointerId !== e.pointerId) return;
      if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 3) return;
      d.moved = true;
      var s = svgPoint(e);
      if (!s) return;
      var p = clampToView(toData(s[0], s[1]));
      p = [round2(p[0]), round2(p[1])];
      state.points[d.index] = p;
      d.node.setAttribute("transform", "translate(" + px(p[0]).toFixed(2) + "," + py(p[1]).toFixed(2) + ")");
      d.node.setAttribute("data-x", p[0]);
      d.node.setAttribute("data-y", p[1]);
    });
    var finish = function (e, cancelled) {
      var d = state.drag;
      if (d && d.pointerId === e.pointerId) {
        state.drag = null;
        if (d.moved) {
          markEdited();
          drawPoints();
          scheduleRun(0);
        }
        return;
      }
      var pr = state.press;
      if (pr && pr.pointerId === e.pointerId) {
        state.press = null;
        if (cancelled) return;
        var s = svgPoint(e);
        if (!s) return;
        var p = clampToView(toData(s[0], s[1]));
        state.points.push([round2(p[0]), round2(p[1])]);
        state.labels.push(pr.shift || e.shiftKey ? -1 : state.newClass);
        markEdited();
        drawPoints();
        scheduleRun(0);
      }
    };
    svg.addEventListener("pointerup", function (e) {
      finish(e, false);
    });
    svg.addEventListener("pointercancel", function (e) {
      finish(e, true);
    });
    var remove = function (e) {
      if (state.staticData) return;
      var target = e.target.closest ? e.target.closest(".point") : null;
      if (!target) return false;
      e.preventDefault();
      var k = +target.dataset.index;
      state.points.splice(k, 1);
      state.labels.splice(k, 1);
      markEdited();
      drawPoints();
      scheduleRun(0);
      return true;
    };
    svg.addEventListener("contextmenu", function (e) {
      if (state.staticData) return;
      if (!remove(e)) e.preventDefault();
    });
    svg.addEventListener("click", function (e) {
      if (e.altKey) remove(e);
    });
  }

  // ------------------------------------------------------------------ start
  function enterStaticMode(data) {
    state.staticData = data;
    applyPalette(data.palette);
    state.presets = (data.presets && data.presets.presets) || {};
    state.presetOrder = Object.keys(state.presets);
    if (data.presets && data.presets.view) state.view = data.presets.view;
    state.preset = data.preset || state.preset;
    populatePresets();
    $("static-note").hidden = false;
    document.body.classList.add("static");
    var available = staticRuns().map(function (r) {
      return r.request && r.request.algorithm;
    });
    Array.prototype.forEach.call($("algorithm").options, function (opt) {
      opt.disabled = available.indexOf(opt.value) < 0;
    });
    state.compare = []; // panels need the server
    $("compare-note").textContent = "panels need the server: run `rosenblatt playground`";
    $("exercise-set").value = "";
    state.exercise.set = "";
    ["preset", "class-toggle", "clear", "upload", "lesson", "eta", "bias-input", "shuffle", "seed", "feature-map", "kernel", "gamma", "degree", "budget", "budget-policy", "compare", "exercise-set"].forEach(
      function (id) {
        $(id).disabled = true;
      },
    );
    state.edited = false;
    drawAxes();
    selectStaticRun();
  }

  function start() {
    bindControls();
    bindPointer();
    renderSpeed();
    var fromURL = readURL();
    drawAxes();
    writeControls();
    if (window.PLAYGROUND_STATIC) {
      enterStaticMode(window.PLAYGROUND_STATIC);
      return;
    }
    if (location.protocol === "file:") {
      finishRun(null, "This page needs its server: run `rosenblatt playground` and open the address it prints.");
      return;
    }
    setReady(false);
    fetch("api/presets")
      .then(function (resp) {
        if (!resp.ok) throw new ApiError("The server could not list the presets (HTTP " + resp.status + ").");
        return resp.json();
      })
      .then(
        function (data) {
          state.presets = data.presets || {};
          state.presetOrder = Object.keys(state.presets);
          limits = data.limits;
          MAX_PANELS = limits.max_panels;
          applyPalette(data.palette);
          $("degree").max = String(limits.max_degree); // the input's arrows stop at the server's cap
          if (data.view && data.view.length === 4 && data.view.every(isNum)) state.view = data.view;
          populatePresets();
          drawAxes();
          var notes = fromURL.notes.slice();
          if (state.compare.length > MAX_PANELS) {
            if (notes.indexOf("compare") < 0) notes.push("compare");
            state.compare = state.compare.slice(0, MAX_PANELS);
          }
          if (!(state.preset in state.presets)) {
            if (!fromURL.points) notes.push("preset");
            state.preset = state.presets.or ? "or" : state.presetOrder[0];
          }
          if (fromURL.points) {
            state.points = fromURL.points.points.map(clampToView);
            state.labels = fromURL.points.labels;
            state.edited = true;
          } else {
            loadPreset(state.preset);
          }
          writeControls();
          drawPoints();
          if (notes.length) {
            state.urlNote = "The link's " + notes.join(", ") + " could not be read; defaults are used instead.";
          }
          requestRun();
        },
        function (err) {
          var text =
            err instanceof ApiError
              ? err.message
              : "Could not reach the playground server (" + (err && err.message) + "). Is `rosenblatt playground` running?";
          finishRun(null, text);
        },
      );
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
