// Draws the history page's charts with uPlot from the JSON in #history-data (written by
// harness/history/page_html.cc). Every cell gets one chart of its timed series and, where its
// engine counts its work, one chart of its exact counts. Change points and forced segment starts
// are DOM elements over the plot (class change-point, data-x the commit's index on the axis).
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('history-data').textContent);
  var BLUE = '#1f6fb4', ORANGE = '#d9730d', GREY = '#57606a';
  var COUNTER_COLOURS = ['#1f6fb4', '#d9730d', '#2da44e', '#8250df', '#bf3989', '#57606a'];

  function fmt(v, digits) {
    return v === null || v === undefined ? '\u2013' : Number(v).toPrecision(digits || 3);
  }

  // The cell's per-point array laid over the machine's commit axis (null where it has no point).
  function onAxis(n, xs, values) {
    var out = new Array(n).fill(null);
    for (var i = 0; i < xs.length; i++) out[xs[i]] = values[i];
    return out;
  }

  function element(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function commitAxis(machine) {
    var n = machine.commits.length;
    return {
      scale: 'x',
      space: 70,
      incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500],
      values: function (u, ticks) {
        return ticks.map(function (t) {
          return Number.isInteger(t) && t >= 0 && t < n ? machine.commits[t].short.slice(0, 7) : '';
        });
      },
    };
  }

  function addMarks(u, marks) {
    marks.forEach(function (m) {
      var line = element('div', 'change-point' + (m.kind === 'change' ? '' : ' forced'));
      line.dataset.x = m.x;
      line.dataset.kind = m.kind;
      line.dataset.commit = m.commit;
      line.style.left = u.valToPos(m.x, 'x') + 'px';
      line.title = m.title;
      line.appendChild(element('span', null, m.label));
      u.over.appendChild(line);
    });
  }

  // On hover: the commit, its subject, date and machine, and the point's figures.
  function tooltip(machine, lines) {
    var tip = element('div', 'tooltip');
    tip.style.display = 'none';
    return function (u) {
      var i = u.cursor.idx;
      if (tip.parentNode !== u.over) u.over.appendChild(tip);
      var row = i === null || i === undefined ? null : lines(i);
      if (!row) {
        tip.style.display = 'none';
        return;
      }
      var c = machine.commits[i];
      tip.textContent = '';
      tip.appendChild(element('div', 'subject', c.short + ' ' + c.subject));
      tip.appendChild(element('div', 'meta', 'committed ' + c.date + ' \u00b7 measured ' +
                              c.run.replace('T', ' ') + ' on ' + machine.name));
      row.forEach(function (text) { tip.appendChild(element('div', null, text)); });
      tip.style.display = 'block';
      var left = u.valToPos(i, 'x') + 12;
      tip.style.left = Math.min(left, u.over.clientWidth - 240) + 'px';
      tip.style.top = Math.max(0, u.cursor.top - 10) + 'px';
    };
  }

  function timedChart(machine, cell, width) {
    var n = machine.commits.length;
    var at = {};
    cell.x.forEach(function (x, i) { at[x] = i; });
    var axis = function (values) { return onAxis(n, cell.x, values); };
    var series = [
      {},
      { scale: 'y', stroke: 'transparent', points: { show: false } },
      { scale: 'y', stroke: 'transparent', points: { show: false } },
      { scale: 'y', label: cell.measure, stroke: BLUE, width: 2, points: { show: true, size: 6 } },
      { scale: 'y', label: 'fitted', stroke: GREY, width: 1.5, dash: [6, 4], spanGaps: true,
        paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } },
    ];
    var values = [
      [...Array(n).keys()], axis(cell.hi), axis(cell.lo), axis(cell.value), axis(cell.fit),
    ];
    var bands = [{ series: [1, 2], fill: 'rgba(31,111,180,0.18)' }];
    var axes = [commitAxis(machine), { scale: 'y', label: cell.measure, size: 60 }];
    if (cell.speedup.some(function (v) { return v !== null; })) {
      series.push(
        { scale: 's', stroke: 'transparent', points: { show: false } },
        { scale: 's', stroke: 'transparent', points: { show: false } },
        { scale: 's', label: 'speed-up', stroke: ORANGE, width: 2, points: { show: true, size: 5 } });
      values.push(axis(cell.speedup_hi), axis(cell.speedup_lo), axis(cell.speedup));
      bands.push({ series: [5, 6], fill: 'rgba(217,115,13,0.15)' });
      axes.push({ scale: 's', side: 1, label: 'speed-up over fastest dense \u00d7', size: 60,
                  grid: { show: false } });
    }
    var hover = tooltip(machine, function (i) {
      var k = at[i];
      if (k === undefined) return null;
      var rows = [cell.status[k] === 'ok'
                    ? cell.measure + ' ' + fmt(cell.value[k]) + ' [' + fmt(cell.lo[k]) + '\u2013' +
                      fmt(cell.hi[k]) + '] over ' + cell.repeats[k] + ' repeats'
                    : cell.status[k]];
      if (cell.speedup[k] !== null) rows.push('speed-up ' + fmt(cell.speedup[k]) + '\u00d7');
      return rows;
    });
    return {
      opts: {
        width: width, height: 250, legend: { show: false },
        scales: { x: { time: false, range: [-0.5, n - 0.5] } },
        cursor: { drag: { x: false, y: false } },
        series: series, bands: bands, axes: axes,
        hooks: { ready: [function (u) { addMarks(u, cell.marks); }], setCursor: [hover] },
      },
      values: values,
    };
  }

  function countsChart(machine, cell, width) {
    var n = machine.commits.length;
    var names = cell.counters.names, perSample = cell.counters.per_sample;
    var at = {};
    cell.x.forEach(function (x, i) { at[x] = i; });
    var series = [{}], values = [[...Array(n).keys()]];
    names.forEach(function (name, j) {
      var first = perSample[j].find(function (v) { return v !== null && v !== 0; });
      series.push({ label: name, stroke: COUNTER_COLOURS[j % COUNTER_COLOURS.length], width: 2,
                    points: { show: true, size: 5 } });
      values.push(onAxis(n, cell.x, perSample[j].map(function (v) {
        return v === null || !first ? null : v / first;
      })));
    });
    var hover = tooltip(machine, function (i) {
      var k = at[i];
      if (k === undefined) return null;
      return names.map(function (name, j) { return name + ' ' + fmt(perSample[j][k], 6) + ' per sample'; });
    });
    return {
      opts: {
        width: width, height: 200, legend: { show: true, live: false },
        scales: { x: { time: false, range: [-0.5, n - 0.5] } },
        cursor: { drag: { x: false, y: false } },
        series: series,
        axes: [commitAxis(machine), { label: 'per sample \u00f7 first point', size: 60 }],
        hooks: { ready: [function (u) { addMarks(u, cell.count_marks); }], setCursor: [hover] },
      },
      values: values,
    };
  }

  function draw(holder, kind, machine, cell, make) {
    var box = element('div', 'chart ' + kind);
    box.dataset.cell = cell.id;
    box.dataset.machine = machine.key;
    box.appendChild(element('h3', null, cell.id));
    holder.appendChild(box);
    var width = Math.max(480, box.clientWidth - 14);
    var chart = make(machine, cell, width);
    new uPlot(chart.opts, chart.values, box);
    box.appendChild(element('div', 'caption', kind === 'timed' ? cell.caption : cell.counters.caption));
  }

  data.machines.forEach(function (machine) {
    var timed = document.getElementById('timed-' + machine.key);
    var counts = document.getElementById('counts-' + machine.key);
    machine.cells.forEach(function (cell) {
      draw(timed, 'timed', machine, cell, timedChart);
      if (cell.counters) draw(counts, 'counts', machine, cell, countsChart);
    });
  });
  document.body.dataset.drawn = document.querySelectorAll('.chart .uplot').length;
})();
