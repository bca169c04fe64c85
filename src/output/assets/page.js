/*
 * report.html: renders the JSON embedded in the page (#mb-data: report.json as written beside
 * it, or the comparison of diff/ab) and moves the inline flame graphs (#mb-flames) into their
 * phase sections.  Every number shown is one of the JSON's, only formatted here; number cells
 * carry the raw value as data-v.  No network: everything is in this one file.
 */
"use strict";
(function () {
  var D = JSON.parse(document.getElementById('mb-data').textContent);
  var app = document.getElementById('app');

  /* ---- helpers --------------------------------------------------------------------------- */
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'cls') e.className = v;
      else if (k.substring(0, 2) === 'on') e.addEventListener(k.substring(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    (kids || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ?
        document.createTextNode(String(c)) : c);
    });
    return e;
  }
  function num(v, d) { return v === null || v === undefined || !isFinite(v) ? '-' : (+v).toFixed(d); }
  /* A phase's BPF cost: the statistics' when held all through the window, else the estimate from
 * the programs' run counts (cost.estimate); null when neither. */
function bpfCost(p) {
  var c = p && p.cost;
  if (!c) return null;
  if (c.bpf_stats)
    return { ns: c.bpf_run_ns, pct: p.oncpu_ns ? c.bpf_pct_of_oncpu : null, how: 'run-time statistics' };
  if (c.estimate)
    return { ns: c.estimate.bpf_run_ns, pct: p.oncpu_ns ? 100 * c.estimate.bpf_run_ns / p.oncpu_ns : null,
             how: 'estimated from the run counts' };
  return null;
}

function ms(ns, d) { return ns === null || ns === undefined ? '-' : num(ns / 1e6, d === undefined ? 2 : d); }
  function pct(a, b) { return b ? 100 * a / b : 0; }
  function base(p) { return p ? String(p).replace(/.*\//, '') : ''; }
  /* a [lo, hi] interval in percent, as report.json holds it */
  function range(ci) { return ci && ci.length === 2 ? num(ci[0], 1) + '\u2013' + num(ci[1], 1) : '-'; }
  function card(title, note, kids, cls) {
    return el('div', { cls: 'card' + (cls ? ' ' + cls : '') },
      [el('h3', {}, [title, note ? el('span', { cls: 'note', text: note }) : null])].concat(kids));
  }
  function meta(pairs) {
    return el('dl', { cls: 'meta' }, pairs.filter(function (p) { return p; }).map(function (p) {
      return el('div', {}, [el('dt', { text: p[0] }), el('dd', {}, [p[1]])]);
    }));
  }

  /*
   * A sortable table.  cols: { label, get(row), num (right-aligned, sorted as numbers), fmt(v,
   * row) -> text, title, cls(row) }.  A click on a header sorts by it (again: the other way).
   */
  function table(cols, rows, opt) {
    opt = opt || {};
    var tbody = el('tbody'), ths = [], state = { col: -1, dir: 0 };
    var t = el('table', { cls: 't sortable' + (opt.cls ? ' ' + opt.cls : '') }, [
      el('thead', {}, [el('tr', {}, cols.map(function (c, i) {
        var th = el('th', { cls: c.num ? 'n' : '', title: c.title || 'sort by ' + c.label,
          onclick: function () { sortBy(i); } }, [c.label]);
        ths.push(th);
        return th;
      }))]), tbody]);
    function fill(list) {
      tbody.textContent = '';
      list.forEach(function (r) {
        tbody.appendChild(el('tr', {}, cols.map(function (c) {
          var v = c.get(r), txt = c.fmt ? c.fmt(v, r) : v;
          var cls = (c.num ? 'n' : 'name') + (c.cls ? ' ' + (c.cls(r) || '') : '');
          var td = el('td', { cls: cls, 'data-v': c.num && v !== null && v !== undefined ? v : null,
            title: c.tip ? c.tip(r) : null }, []);
          if (c.bar && c.bar(r) > 0) {
            td.classList.add('bar-cell');
            td.appendChild(el('i', { style: 'width:' + Math.min(100, c.bar(r)).toFixed(1) + '%' }));
          }
          td.appendChild(el('span', { text: txt === null || txt === undefined ? '-' : String(txt) }));
          return td;
        })));
      });
    }
    function sortBy(i) {
      var c = cols[i], dir = state.col === i ? -state.dir : (c.num ? -1 : 1);
      var list = rows.slice().sort(function (a, b) {
        var x = c.get(a), y = c.get(b);
        if (c.num) { x = x === null || x === undefined ? -Infinity : +x; y = y === null || y === undefined ? -Infinity : +y; }
        else { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
      state.col = i; state.dir = dir;
      ths.forEach(function (th, j) {
        th.classList.toggle('asc', j === i && dir > 0);
        th.classList.toggle('desc', j === i && dir < 0);
      });
      t.setAttribute('data-sorted', c.label + (dir > 0 ? ' asc' : ' desc'));
      fill(list);
    }
    fill(rows);
    return t;
  }
  function scroll(t) { return el('div', { cls: 'scroll' }, [t]); }

  /* A flame graph from #mb-flames with a search box and a reset button driving its viewer. */
  function flame(key, note) {
    var src = document.querySelector('#mb-flames [data-flame="' + key + '"]');
    if (!src) return el('p', { cls: 'small', text: 'no flame graph: no stacks in this phase' });
    var svg = src.querySelector('svg');
    var box = el('div', { cls: 'flame-box' }, [svg]);
    var v = muxFlame(svg, function () { input.focus(); return null; });
    var state = el('span', { cls: 'state' });
    var input = el('input', { type: 'search', placeholder: 'search frames (regular expression)',
      'aria-label': 'search frames', onkeydown: function (ev) {
        if (ev.key === 'Enter') go();
        else if (ev.key === 'Escape') { input.value = ''; v.resetSearch(); }
      } });
    function go() { v.search(input.value); }
    v.onChange(function () {
      var z = svg.getAttribute('data-zoom'), m = svg.getAttribute('data-matched');
      state.textContent = (z ? 'zoomed (click "Reset zoom" or Escape)' : 'click a frame to zoom') +
        (m ? '; search matches ' + m + '%' : '');
    });
    state.textContent = 'click a frame to zoom, hover for details';
    return el('div', {}, [el('div', { cls: 'tools' }, [input,
      el('button', { onclick: go, text: 'Search' }),
      el('button', { onclick: function () { input.value = ''; v.resetSearch(); }, text: 'Clear' }),
      el('button', { onclick: function () { v.unzoom(); }, text: 'Reset zoom' }), state,
      note ? el('span', { cls: 'small', text: note }) : null]), box]);
  }

  function warnings(list) {
    if (!list || !list.length) return null;
    return card('Warnings', list.length + (list.length === 1 ? ' line' : ' lines') + ' muxbpf printed',
      [el('ul', {}, list.map(function (w) {
        return el('li', { cls: w.level }, [(w.level === 'error' ? 'error: ' : '') + w.message]);
      }))], 'warnings');
  }

  function files(list, title) {
    if (!list || !list.length) return null;
    return card(title || 'Files beside this page', null, [el('div', { cls: 'files' }, list.map(function (f) {
      return el('a', { href: encodeURI(f), text: f });
    }))]);
  }

  function toc(items) {
    return el('nav', { cls: 'toc' }, [el('b', { text: 'phases' })].concat(items.map(function (it) {
      return el('a', { href: '#p-' + it, text: it });
    })).concat([el('a', { href: '#top', text: '\u2191 top' })]));
  }

  function phaseLinks(names, i, extra) {
    var k = [];
    if (i > 0) k.push(el('a', { href: '#p-' + names[i - 1], text: '\u2190 ' + names[i - 1] }));
    if (i + 1 < names.length) k.push(el('a', { href: '#p-' + names[i + 1], text: names[i + 1] + ' \u2192' }));
    k.push(el('a', { href: '#top', text: '\u2191 top' }));
    (extra || []).forEach(function (f) { k.push(el('a', { href: encodeURI(f), text: f })); });
    return el('span', { cls: 'links' }, k);
  }

  /* ---- the run page ---------------------------------------------------------------------- */
  var WALK = { outermost: 'outermost frame', zero_end: 'zero rbp/return address', no_proc: 'no process tables',
    no_table: 'no tables yet', no_row: 'no CFI row', unsupported: 'unsupported rule',
    read_fault: 'read fault', bad_frame: 'bad frame', depth: 'depth limit' };
  var DROP = { stack_failed: 'stack failed', counts_full: 'counts map full', phase_range: 'phase out of range',
    stack_full: 'stack map full' };
  var VIEWS = [['function', 'function'], ['srcfile', 'source file'], ['line', 'source line'], ['dso', 'DSO']];

  function functionsCard(p, r) {
    var fn = p.functions, box = el('div'), seg = el('div', { cls: 'seg', role: 'tablist' });
    var views = { function: fn.rows };
    for (var k in fn.views || {}) views[k] = fn.views[k];
    function show(key) {
      Array.prototype.forEach.call(seg.children, function (b) {
        b.classList.toggle('on', b.getAttribute('data-view') === key);
      });
      var rows = views[key] || [];
      box.textContent = '';
      if (!rows.length) { box.appendChild(el('p', { cls: 'small', text: 'no samples' })); return; }
      box.appendChild(scroll(table([
        { label: 'self %', num: true, get: function (x) { return x.self_pct; }, fmt: function (v) { return num(v, 1); },
          bar: function (x) { return x.self_pct; } },
        { label: 'self 95%', get: function (x) { return range(x.self_ci_pct); }, cls: function (x) { return 'nw ci' + (x.self_ci_wide ? ' wide' : ''); },
          title: '95% interval of the self share (the wider of Wilson and the spread between batches of rounds); grey: wider than the share itself' },
        { label: 'total %', num: true, get: function (x) { return x.total_pct; }, fmt: function (v) { return num(v, 1); } },
        { label: 'total 95%', get: function (x) { return range(x.total_ci_pct); }, cls: function () { return 'nw ci'; },
          title: '95% interval of the total share (the wider of Wilson and the spread between batches of rounds)' },
        { label: 'self', num: true, get: function (x) { return x.self; }, title: 'samples with this leaf' },
        { label: 'total', num: true, get: function (x) { return x.total; }, title: 'samples with this on the stack' },
        { label: VIEWS.filter(function (v) { return v[0] === key; })[0][1], get: function (x) { return x.name; },
          cls: function (x) { return x.unnamed ? 'unnamed' : ''; } }
      ], rows, { cls: 'fn' })));
      box.setAttribute('data-view', key);
    }
    VIEWS.forEach(function (v) {
      seg.appendChild(el('button', { 'data-view': v[0], text: v[1], disabled: !views[v[0]],
        title: views[v[0]] ? 'rows by ' + v[1] : 'not folded in this run (--by)',
        onclick: function () { show(v[0]); } }));
    });
    show('function');
    var unnamed = fn.samples ? ' \u00b7 ' + num(pct(fn.unnamed, fn.samples), 1) + '% unnamed, ' +
      num(pct(fn.with_line, fn.samples), 1) + '% with file:line' : '';
    return card('Top functions', fn.samples + ' user samples' + unnamed, [seg, box]);
  }

  var SYS_CI_TITLE = '95% interval from the spread between the phase\u2019s batches of rounds (the runs of --runs); ' +
    'once: exact for one window, no interval; grey: wider than the figure itself';
  /* a syscall figure's interval, or how it is known: once (one window), - (a merged report of
   * one run), ? (batches, but calls in fewer than 2 of them) */
  function sysRange(x, ci, d) {
    if (x.ci_from !== 'batches') return x.ci_from === 'once' ? 'once' : '-';
    return ci && ci.length === 2 ? num(ci[0], d) + '\u2013' + num(ci[1], d) : '?';
  }

  /* --by command: the phase's command rows, each share and us/cmd with its 95% interval. */
  function commandsCard(p, r) {
    var sc = r.softcode, ph = sc && sc.available && sc.phases.filter(function (q) { return q.id === p.id; })[0];
    if (!ph || !ph.commands.length) return null;
    function ciRange(c) { return c ? num(c.lo, 2) + '\u2013' + num(c.hi, 2) : '-'; }
    var f = p.rounds && p.rounds.design_factor;
    var from = p.rounds && p.rounds.batches ? 'the wider of Wilson and the spread between the phase\'s ' + p.rounds.batches + ' batches' :
      f > 1 ? 'Wilson \u00d7' + num(f, 2) + ', the phase\'s batch design factor' : 'Wilson';
    var cols = [
      { label: 'share %', num: true, get: function (x) { return x.share_pct; }, fmt: function (v) { return num(v, 1); },
        bar: function (x) { return x.share_pct; } },
      { label: 'share 95%', get: function (x) { return range(x.share_ci_pct); }, cls: function (x) { return 'nw ci' + (x.share_ci_wide ? ' wide' : ''); },
        title: '95% interval of the share of the samples (' + from + '); grey: wider than the share itself' },
      { label: 'samples', num: true, get: function (x) { return x.samples; } }];
    if (sc.exact)
      cols.push({ label: 'cmds', num: true, get: function (x) { return x.runs; } },
        { label: 'us/cmd', num: true, get: function (x) { return x.cpu_per_cmd_us ? x.cpu_per_cmd_us.value : null; },
          fmt: function (v) { return num(v, 2); }, title: 'exact on-CPU per command (task clock, scaled to the kernel\'s runtime)' },
        { label: 'us/cmd 95%', get: function (x) { return ciRange(x.cpu_per_cmd_us); },
          cls: function (x) { return 'nw ci' + (x.cpu_per_cmd_us && x.cpu_per_cmd_us.wide ? ' wide' : ''); },
          title: '95% interval of the CPU per command: the t interval over the phase\'s batches (from batches), or the share\'s interval x the phase\'s on-CPU / cmds around the exact value (from samples); grey: wider than the value' });
    cols.push({ label: 'command', get: function (x) { return x.command; } });
    return card('By command', (sc.exact ? 'exact on-CPU per command; ' : '') + 'intervals: ' + from,
      [scroll(table(cols, ph.commands, { cls: 'cmds' }))]);
  }

  function ledgerCard(p, r) {
    var l = p.ledger;
    if (!l) return card('Ledger', null, [el('p', { cls: 'small', text: r.ledger ?
      'no ledger for this phase' : 'the ledger was off (--no-ledger)' })]);
    /* runtime before the switch-in is both on-CPU and off-CPU in the terms: the bar shows it once */
    var early = l.rt_before_in_ns || 0, off = Math.max(0, l.sys_off_ns - early);
    var other = l.thread_wall_ns - l.user_ns - l.sys_cpu_ns - off - l.preempt_user_ns - l.site_walk_ns -
      l.stolen_ns;
    var parts = [['user', 'k-user', l.user_ns, 'user mode on-CPU'],
      ['syscalls', 'k-sys', l.sys_cpu_ns, 'on-CPU inside syscalls'],
      ['off-CPU in syscalls', 'k-off', off, 'blocked or waiting inside syscalls (less the runtime the kernel counted before the switch-in)'],
      ['preempted', 'k-pre', l.preempt_user_ns, 'runnable in user mode but not running'],
      ['call-site walks', 'k-walk', l.site_walk_ns, 'this profiler\u2019s stack walks for the call sites, after the calls'],
      ['stolen', 'k-steal', l.stolen_ns, 'on a CPU, but left out of the kernel\u2019s runtime: the host ran something else on the vCPU, or interrupts'],
      ['switch path + leftover', 'k-other', other > 0 ? other : 0, 'the context switch itself and the unaccounted rest']];
    var W = l.thread_wall_ns || 1;
    var bar = el('div', { cls: 'balance', title: 'thread wall ' + ms(l.thread_wall_ns) + ' ms' },
      parts.map(function (x) {
        return el('div', { cls: x[1], style: 'width:' + (100 * x[2] / W).toFixed(3) + '%',
          title: x[0] + ': ' + ms(x[2]) + ' ms (' + num(pct(x[2], W), 1) + '%)', 'data-ns': x[2] });
      }));
    var legend = el('div', { cls: 'legend' }, parts.map(function (x) {
      return el('span', { title: x[3] }, [el('i', { cls: x[1] }), x[0] + ' ' + ms(x[2]) + ' ms (' + num(pct(x[2], W), 1) + '%)']);
    }));
    var kids = [el('div', { cls: 'small' }, [l.threads + (l.threads === 1 ? ' thread' : ' threads') +
      ', wall ' + ms(l.thread_wall_ns) + ' ms = on-CPU ' + ms(l.oncpu_ns) + ' + off-CPU ' + ms(l.off_cpu_ns) +
      ' + switch path ' + ms(l.switch_path_ns) + ' + stolen ' + ms(l.stolen_ns) + ' \u2212 runtime before switch-in ' +
      ms(early) + '; leftover ' + ms(l.leftover_ns, 3) + ' ms']), bar, legend,
      el('div', { cls: 'small' }, ['runqueue wait ' + ms(l.run_delay_ns) + ' ms \u00b7 switches ' + l.nvcsw +
        ' voluntary, ' + l.nivcsw + ' involuntary \u00b7 wakeups ' + l.wakeups + ' (' + num(l.wakeups_per_s, 1) +
        '/s)' + (l.lost ? ' \u00b7 ' + l.lost + ' ledger entries LOST' : '')])];
    kids.push(el('h4', { text: 'Syscalls (' + l.sys_count + ' calls, ' + ms(l.sys_cpu_ns) + ' ms on-CPU)' }));
    kids.push(l.syscalls.length ? scroll(table([
      { label: 'syscall', get: function (x) { return x.name; } },
      { label: 'calls', num: true, get: function (x) { return x.count; } },
      { label: 'on-CPU ms', num: true, get: function (x) { return x.cpu_ns; }, fmt: function (v) { return ms(v, 3); },
        bar: function (x) { return pct(x.cpu_ns, l.sys_cpu_ns); } },
      { label: 'wall ms', num: true, get: function (x) { return x.wall_ns; }, fmt: function (v) { return ms(v, 3); } },
      { label: 'share %', num: true, get: function (x) { return x.oncpu_pct; }, fmt: function (v) { return num(v, 2); },
        title: '% of the phase\u2019s on-CPU' },
      { label: 'share 95%', get: function (x) { return sysRange(x, x.oncpu_ci_pct, 2); },
        cls: function (x) { return 'nw ci' + (x.oncpu_ci_wide ? ' wide' : ''); }, title: SYS_CI_TITLE },
      { label: 'us/call', num: true, get: function (x) { return x.us_per_call; }, fmt: function (v) { return num(v, 1); } },
      { label: 'us/call 95%', get: function (x) { return sysRange(x, x.us_per_call_ci, 1); },
        cls: function (x) { return 'nw ci' + (x.us_per_call_ci_wide ? ' wide' : ''); }, title: SYS_CI_TITLE }
    ], l.syscalls, { cls: 'sys' })) : el('p', { cls: 'small', text: 'no syscalls' }));
    kids.push(el('h4', { text: 'Kernel time by user call site' }, []));
    kids.push(l.sites.length ? scroll(table([
      { label: '% of syscall CPU', num: true, get: function (x) { return x.cpu_pct; }, fmt: function (v) { return num(v, 1); },
        bar: function (x) { return x.cpu_pct; },
        title: 'the syscall\u2019s exact share of the syscalls\u2019 on-CPU, split among its call sites by their walked calls' },
      { label: '95%', get: function (x) { return range(x.cpu_ci_pct); },
        cls: function (x) { return 'nw ci' + (x.cpu_ci_wide ? ' wide' : ''); },
        title: 'the walked calls are a random sample, 1 call in ' + r.site_every + ': the interval of the split' },
      { label: 'calls', num: true, get: function (x) { return x.count; }, title: 'sampled calls (1 in ' + r.site_every + ', at random)' },
      { label: 'call site', get: function (x) { return x.call_site || x.syscall; } }
    ], l.sites.slice().sort(function (a, b) { return b.cpu_pct - a.cpu_pct; }), { cls: 'sites' })) :
      el('p', { cls: 'small', text: 'no sampled call sites' }));
    return card('Where the time went', 'the ledger: exact, from the kernel', kids);
  }

  function accountingCard(p, r) {
    var s = p.sampler, kids = [];
    var dropped = 0, reasons = [];
    for (var k in s.dropped) { dropped += s.dropped[k]; if (s.dropped[k]) reasons.push((DROP[k] || k) + ' ' + s.dropped[k]); }
    kids.push(el('p', {}, ['samples: taken ' + s.taken + ' = recorded whole ' + s.recorded + ' + dropped ' + dropped +
      (reasons.length ? ' (' + reasons.join(', ') + ')' : '')]));
    if (p.other_pid_samples) kids.push(el('p', {}, [p.other_pid_samples + ' samples in child processes']));
    if (s.walks) {
      var out = s.walk_end.outermost + s.walk_end.zero_end, share = pct(out, s.walks);
      kids.push(el('p', { cls: 'unwind', 'data-v': share }, [el('span', { cls: 'meter' }, [el('b', { style: 'width:' + share.toFixed(1) + '%' })]),
        'stacks: ' + num(share, 1) + '% reach the outermost frame (' + num(pct(s.walk_end.outermost, s.walks), 1) +
        '% by CFI end mark, ' + num(pct(s.walk_end.zero_end, s.walks), 1) + '% by a zero rbp/return address), ' +
        num(s.frames / s.walks, 1) + ' frames on average' + (s.frames ? ', ' + num(pct(s.fp_frames, s.frames), 1) +
        '% of steps by frame pointer' : '')]));
      var trunc = [];
      for (var e in s.walk_end) if (e !== 'outermost' && e !== 'zero_end' && s.walk_end[e])
        trunc.push((WALK[e] || e) + ': ' + s.walk_end[e] + ' (' + num(pct(s.walk_end[e], s.walks), 1) + '%)');
      if (trunc.length) kids.push(el('p', { cls: 'small' }, ['truncated: ' + trunc.join(', ')]));
    }
    var u = p.functions.unnamed_why, why = [];
    for (var w in u) if (u[w]) why.push(w.replace('_', ' ') + ' ' + u[w]);
    if (why.length) kids.push(el('p', { cls: 'small' }, ['unnamed leaves: ' + why.join(', ')]));
    var c = p.cost, bc = bpfCost(p);
    if (c) kids.push(el('p', {}, ['profiler cost: ' + (bc ? 'BPF ' + ms(bc.ns, 3) + ' ms' +
      (bc.pct !== null ? ' = ' + num(bc.pct, 2) + '% of on-CPU' : '') + ' (' + bc.how + ')' :
      'BPF run time not measured') + '; muxbpf ' +
      ms(c.muxbpf_cpu_ns) + ' ms CPU = ' + num(c.muxbpf_pct_of_core, 3) + '% of a core' +
      (c.estimate && c.run_counts ? '; bystanders: ' + c.run_counts.early_exits + ' early exits, ' +
        ms(c.estimate.bystander_ns, 3) + ' ms in the programs' : '')]));
    var k = p.corrected;
    if (k) kids.push(el('p', {}, ['corrected for muxbpf (estimate): on-CPU ' + ms(k.oncpu_ns, 2) + ' ms (user ' +
      ms(k.usr_ns, 2) + ' + syscalls ' + ms(k.sys_ns, 2) + '); removed ' + ms(k.programs_ns, 3) +
      ' ms of its programs in the target\'s context and ' + ms(k.tracepoint_path_ns, 3) + ' ms of tracepoint path']));
    if (p.spread) kids.push(el('p', {}, ['spread over ' + p.spread.runs + ' runs: on-CPU ' +
      ms(p.spread.oncpu_ns.min) + ' / ' + ms(p.spread.oncpu_ns.median) + ' / ' + ms(p.spread.oncpu_ns.max) +
      ' ms (min / median / max), ' + num(100 * p.spread.oncpu_ns.spread, 1) + '%']));
    return card('Sample accounting and unwinding', null, [el('div', { cls: 'acc' }, kids)]);
  }

  function symbolsCard(r) {
    var list = r.symbols || [];
    if (!list.length) return null;
    var total = list.reduce(function (a, d) { return a + d.samples; }, 0);
    return card('Symbols', 'leaf frames of all phases, by DSO', [scroll(table([
      { label: 'DSO', get: function (d) { return base(d.dso) || '(no mapping)'; }, tip: function (d) { return d.dso; } },
      { label: 'share %', num: true, get: function (d) { return pct(d.samples, total); }, fmt: function (v) { return num(v, 1); } },
      { label: 'named %', num: true, get: function (d) { return pct(d.named, d.samples); }, fmt: function (v) { return num(v, 1); } },
      { label: 'file:line %', num: true, get: function (d) { return pct(d.with_line, d.samples); }, fmt: function (v) { return num(v, 1); } },
      { label: 'names from', get: function (d) { return stripped(d) ? 'STRIPPED, no debuginfo: named by DSO+offset only' :
        (d.symbols || '-') + (d.dwarf ? ', lines from DWARF' : ''); },
        cls: function (d) { return stripped(d) ? 'stripped' : ''; } },
      { label: 'build-id', get: function (d) { return d.build_id || '-'; } }
    ], list, { cls: 'syms' }))]);
  }
  function stripped(d) { return d.dso && !d.symbols && !d.dwarf; }

  function phaseTable(r) {
    var rows = r.phases;
    return card('Phases', 'click a name for its section; click a header to sort', [table([
      { label: 'phase', get: function (p) { return p.name; } },
      { label: 'wall s', num: true, get: function (p) { return p.wall_s; }, fmt: function (v) { return num(v, 3); } },
      { label: 'cmds', num: true, get: function (p) { return p.measured && p.commands ? p.commands : null; } },
      { label: 'cmd/s', num: true, get: function (p) { return p.cmd_per_s; }, fmt: function (v) { return num(v, 0); } },
      { label: 'on-CPU ms', num: true, get: function (p) { return p.oncpu_ns; }, fmt: function (v) { return ms(v); },
        bar: function (p) { return pct(p.oncpu_ns, Math.max.apply(null, rows.map(function (q) { return q.oncpu_ns; }))); } },
      { label: 'usr ms', num: true, get: function (p) { return p.usr_ns; }, fmt: function (v) { return ms(v); } },
      { label: 'sys ms', num: true, get: function (p) { return p.sys_ns; }, fmt: function (v) { return ms(v); } },
      { label: 'samples', num: true, get: function (p) { return p.samples; } },
      { label: 'rounds', num: true, title: 'rounds of the phase\'s work (a phase whose work repeats runs it until its top rows are within +-1 point, or to --max-phase-seconds)',
        get: function (p) { return p.rounds ? p.rounds.count : null; } },
      { label: 'stopped', get: function (p) { return p.rounds ? p.rounds.stop : ''; } },
      { label: 'us/cmd', num: true, title: 'exact on-CPU time per command, with the 95% interval from the spread between batches of rounds',
        get: function (p) { return p.rounds && p.rounds.cpu_per_cmd_us ? p.rounds.cpu_per_cmd_us.value : null; },
        fmt: function (v) { return num(v, 2); } },
      { label: 'us/cmd +-', num: true,
        get: function (p) { var c = p.rounds && p.rounds.cpu_per_cmd_us; return c ? (c.hi - c.lo) / 2 : null; },
        fmt: function (v) { return num(v, 2); } },
      { label: 'wakeups', num: true, get: function (p) { return p.ledger ? p.ledger.wakeups : null; } },
      { label: 'wake/s', num: true, get: function (p) { return p.ledger && p.measured ? p.ledger.wakeups_per_s : null; },
        fmt: function (v) { return num(v, 0); } },
      { label: 'off-CPU ms', num: true, get: function (p) { return p.ledger ? p.ledger.off_cpu_ns : null; }, fmt: function (v) { return ms(v, 1); } },
      { label: 'BPF %', num: true, title: 'the profiler\'s BPF run time as a share of the phase\'s on-CPU time',
        get: function (p) { var b = bpfCost(p); return b ? b.pct : null; },
        fmt: function (v) { return num(v, 1); } },
      { label: 'status', get: function (p) { return p.ok ? '' : p.partial ? 'PARTIAL' : p.measured ? 'FAILED' : ''; },
        cls: function (p) { return p.ok ? '' : 'stripped'; } }
    ], rows, { cls: 'phases' })]);
  }

  function linkify(t) {
    /* the phase names in the phase table link to their sections */
    Array.prototype.forEach.call(t.querySelectorAll('table.phases'), function (tab) {
      new MutationObserver(function () { link(tab); }).observe(tab.tBodies[0], { childList: true });
      link(tab);
    });
    function link(tab) {
      Array.prototype.forEach.call(tab.tBodies[0].rows, function (tr) {
        var td = tr.cells[0], name = td.textContent;
        if (td.querySelector('a')) return;
        td.textContent = '';
        td.appendChild(el('a', { href: '#p-' + name, text: name }));
      });
    }
  }

  function runPage() {
    var r = D.data, names = r.phases.map(function (p) { return p.name; });
    var own = (r.symbols || []).filter(function (d) { return d.dso === r.target; })[0] ||
      (r.symbols || []).filter(function (d) { return base(d.dso) === base(r.target); })[0];
    /* the cost where it matters most: the measured phase with the most on-CPU time */
    var busiest = r.phases.filter(function (p) { return p.measured && p.cost; })
      .sort(function (a, b) { return b.oncpu_ns - a.oncpu_ns; })[0];
    var bc = busiest && busiest.cost;
    var u = r.unwind;
    document.title = 'muxbpf: ' + (r.netmux_version || base(r.target));
    app.appendChild(el('header', { cls: 'top', id: 'top' }, [
      el('h1', {}, ['muxbpf report ', el('span', { cls: 'kind', text: '\u2014 ' + (r.netmux_version || base(r.target)) })]),
      el('div', { cls: 'target mono', text: r.target }),
      meta([['netmux version', r.netmux_version || '(unknown)'], ['muxbpf', r.muxbpf_version],
        ['build-id', own && own.build_id ? own.build_id : '(none)'],
        own && stripped(own) ? ['symbols', el('span', { cls: 'stripped', text: base(own.dso) + ': STRIPPED, no debuginfo: named by DSO+offset only' })] : null,
        ['pid, port', r.pid + ', ' + r.port],
        ['settings', 'scale ' + r.scale + ', ' + (r.profiled ? r.freq_hz + ' Hz user-only sampling' : 'not profiled') +
          ', ' + (r.runs > 1 ? r.runs + ' runs merged' : '1 run') + ', call sites 1 in ' + r.site_every +
          (r.min_pct ? ', rows from ' + r.min_pct + '%' : '')],
        ['unwinding', u ? '--unwind ' + u.mode + (u.tables ? ', CFI tables: ' + u.tables + ' files, ' + u.rows + ' rows, built in ' +
          num(u.build_ms, 1) + ' ms' : '') : (r.profiled ? 'frame pointers' : 'none')],
        ['profiler cost', (u && u.sampler_ns_per_sample ? 'sampler ' + num(u.sampler_ns_per_sample, 0) + ' ns per sample' : '') +
          (bc ? (u && u.sampler_ns_per_sample ? '; ' : '') + 'in ' + busiest.name + ' (the busiest phase): ' +
            (bpfCost(busiest) && bpfCost(busiest).pct !== null ? 'BPF ' + num(bpfCost(busiest).pct, 2) + '% of on-CPU, ' : '') +
            'muxbpf ' + num(bc.muxbpf_pct_of_core, 2) + '% of a core; per phase: BPF % in the phase table' : '')],
        r.syscall_hook ? ['syscall hook', r.syscall_hook.attached_to + ' (' + r.syscall_hook.why + ')' +
          (r.syscall_hook.bystander_ns_per_syscall !== null ? '; another process\'s syscall pays ' +
            num(r.syscall_hook.bystander_ns_per_syscall, 0) + ' ns more (measured at attach)' : '')] : null,
        ['on-CPU cross-check', 'max |diff| ' + num(r.oncpu_check_max_diff_pct, 2) + '% vs schedstat'],
        r.stopped ? ['stopped early', r.stopped] : null])
    ]));
    var phaseNames = r.profiled ? names : [];
    app.appendChild(toc(phaseNames));
    var m = el('main');
    app.appendChild(m);
    var w = warnings(r.warnings);
    if (w) m.appendChild(w);
    var pt = phaseTable(r);
    m.appendChild(pt);
    linkify(pt);
    var s = symbolsCard(r);
    if (s) m.appendChild(s);
    m.appendChild(files(D.files));
    if (!r.profiled) return;
    r.phases.forEach(function (p, i) {
      var sec = el('section', { cls: 'phase', id: 'p-' + p.name, 'data-phase': p.name });
      var flags = [];
      if (p.partial) flags.push(el('span', { cls: 'flag warn', text: 'PARTIAL' }));
      else if (!p.ok && p.measured) flags.push(el('span', { cls: 'flag bad', text: 'FAILED' + (p.error ? ': ' + p.error : '') }));
      var own = D.files.filter(function (f) { return f === p.name + '.svg' || f === p.name + '.folded'; });
      sec.appendChild(el('div', { cls: 'phase-head' }, [el('h2', { text: p.name })].concat(flags).concat([
        el('span', { cls: 'sum', text: (p.measured ? 'wall ' + num(p.wall_s, 3) + ' s \u00b7 ' : '') +
          (p.commands ? p.commands + ' cmds \u00b7 ' + num(p.cmd_per_s, 0) + ' cmd/s \u00b7 ' : '') +
          'on-CPU ' + ms(p.oncpu_ns) + ' ms \u00b7 ' + p.samples + ' samples' }),
        phaseLinks(names, i, own)])));
      sec.appendChild(el('div', { cls: 'grid2 row2' }, [functionsCard(p, r), ledgerCard(p, r)]));
      var cc = commandsCard(p, r);
      if (cc) sec.appendChild(cc);
      sec.appendChild(card('Flame graph', 'user samples plus the ledger\'s kernel time as [sys] frames (blue)',
        [flame(p.name)]));
      sec.appendChild(accountingCard(p, r));
      m.appendChild(sec);
    });
    app.appendChild(el('footer', { text: 'muxbpf ' + r.muxbpf_version + ' \u00b7 report.json schema ' + r.schema_version +
      ' \u00b7 this page is self-contained: it works offline and can be sent as one file' }));
  }

  /* ---- the diff page (muxbpf diff --out: diff.json) ------------------------------------------ */
  function verdictCls(m) {
    return m.beyond ? (m.change_pct > 0 ? 'up' : 'down') : 'same';
  }
  function side(x) {
    return (x.netmux_version || base(x.target) || '?') + ' \u00b7 ' + x.runs + (x.runs === 1 ? ' run' : ' runs') +
      ' \u00b7 scale ' + x.scale + ' \u00b7 ' + x.freq_hz + ' Hz';
  }
  function metricTable(ph) {
    return table([
      { label: 'metric', get: function (m) { return m.label; } },
      { label: 'old', num: true, get: function (m) { return m.old * m.scale; }, fmt: function (v, m) { return num(v, m.label === 'cmd/s' ? 0 : m.label === 'wall s' ? 3 : 2); } },
      { label: 'new', num: true, get: function (m) { return m.new * m.scale; }, fmt: function (v, m) { return num(v, m.label === 'cmd/s' ? 0 : m.label === 'wall s' ? 3 : 2); } },
      { label: 'change %', num: true, get: function (m) { return m.change_pct; },
        fmt: function (v) { return v === null ? 'new' : (v > 0 ? '+' : '') + num(v, 1); },
        cls: function (m) { return m.beyond ? verdictCls(m) : ''; } },
      { label: 'noise %', num: true, get: function (m) { return m.noise_pct; }, fmt: function (v) { return v === null ? '?' : num(v, 1); },
        title: 'the larger run-to-run spread of the two inputs (--runs)' },
      { label: 'verdict', get: function (m) { return m.verdict; } }
    ], ph.metrics, { cls: 'metrics' });
  }
  function deltaTable(fn) {
    return table([
      { label: 'delta pts', num: true, get: function (x) { return x.delta_pts; }, fmt: function (v) { return (v > 0 ? '+' : '') + num(v, 2); },
        cls: function (x) { return x.delta_pts > 0 ? 'up' : 'down'; } },
      { label: '\u00b1', num: true, get: function (x) { return x.delta_ci_half_pts; }, fmt: function (v) { return num(v, 2); },
        title: 'half the 95% interval of the change' },
      { label: 'old %', num: true, get: function (x) { return x.old_pct; }, fmt: function (v, x) { return num(v, 2) + (x.old_ci_half_pts !== undefined ? ' \u00b1' + num(x.old_ci_half_pts, 1) : ''); } },
      { label: 'new %', num: true, get: function (x) { return x.new_pct; }, fmt: function (v, x) { return num(v, 2) + (x.new_ci_half_pts !== undefined ? ' \u00b1' + num(x.new_ci_half_pts, 1) : ''); } },
      { label: 'sigma', num: true, get: function (x) { return x.sigma_pts; }, fmt: function (v) { return num(v, 2); } },
      { label: 'beyond', get: function (x) { return x.beyond ? '*' : ''; }, title: 'beyond 3 sigma of sampling noise' },
      { label: 'function', get: function (x) { return x.name; } }
    ], fn.rows, { cls: 'fn deltas' });
  }
  /* the syscalls' share of on-CPU and us/call, old and new with their intervals (null: once) */
  function sysHalf(v, h, d) { return num(v, d) + (h === null || h === undefined ? ' (no interval)' : ' \u00b1' + num(h, d)); }
  function sysDiffTable(rows) {
    return table([
      { label: 'syscall', get: function (x) { return x.name; } },
      { label: 'figure', get: function (x) { return x.figure === 'oncpu_pct' ? 'share %' : 'us/call'; } },
      { label: 'old', num: true, get: function (x) { return x.old; }, fmt: function (v, x) { return sysHalf(v, x.old_ci_half, 2); } },
      { label: 'new', num: true, get: function (x) { return x.new; }, fmt: function (v, x) { return sysHalf(v, x.new_ci_half, 2); } },
      { label: 'beyond', get: function (x) { return x.beyond ? '*' : ''; },
        title: 'beyond 3 sigma of the two reports\u2019 batch intervals (a figure without one is not judged)' }
    ], rows, { cls: 'sysdiff' });
  }
  function diffPage() {
    var d = D.data, names = d.phases.filter(function (p) { return !p.only_in; }).map(function (p) { return p.name; });
    document.title = 'muxbpf diff: ' + (d.old.netmux_version || '?') + ' \u2192 ' + (d.new.netmux_version || '?');
    app.appendChild(el('header', { cls: 'top', id: 'top' }, [
      el('h1', {}, ['muxbpf diff ', el('span', { cls: 'kind', text: '\u2014 old \u2192 new' })]),
      meta([['old', side(d.old)], ['new', side(d.new)], ['old target', d.old.target], ['new target', d.new.target],
        ['noise', 'metrics: the larger run-to-run spread (max \u2212 min) / median of the two inputs (needs --runs \u2265 2); ' +
          'functions: ' + d.sigmas + ' standard errors of sampling noise']])]));
    app.appendChild(toc(names));
    var m = el('main');
    app.appendChild(m);
    /* verdicts first */
    var moved = [];
    d.phases.forEach(function (p) {
      (p.metrics || []).forEach(function (x) { if (x.beyond) moved.push([p.name, x.label, x]); });
    });
    var fnMoved = d.phases.reduce(function (a, p) {
      return a + (p.functions ? p.functions.rows.filter(function (x) { return x.beyond; }).length : 0);
    }, 0);
    var head = d.beyond ? d.beyond + (d.beyond === 1 ? ' change' : ' changes') + ' beyond noise' : 'no change beyond noise';
    var vk = [el('p', { cls: 'verdict-line' }, [el('span', { cls: 'verdict ' + (d.beyond ? 'up' : 'same'), text: head })])];
    if (moved.length) vk.push(el('ul', {}, moved.map(function (x) {
      return el('li', {}, [el('a', { href: '#p-' + x[0], text: x[0] }), ' ' + x[1] + ': ' + x[2].verdict + ' (' +
        (x[2].change_pct > 0 ? '+' : '') + num(x[2].change_pct, 1) + '%, noise ' + num(x[2].noise_pct, 1) + '%)']);
    })));
    if (fnMoved) vk.push(el('p', { cls: 'small', text: fnMoved + ' function share' + (fnMoved === 1 ? '' : 's') +
      ' moved beyond sampling noise (marked * in the phases below)' }));
    var only = d.phases.filter(function (p) { return p.only_in; });
    if (only.length) vk.push(el('p', { cls: 'small', text: only.map(function (p) { return p.name + ' only in the ' + p.only_in + ' report'; }).join('; ') }));
    m.appendChild(card('Verdict', null, vk, 'verdicts'));
    m.appendChild(files(D.files));
    d.phases.forEach(function (p, i) {
      if (p.only_in) return;
      var sec = el('section', { cls: 'phase', id: 'p-' + p.name, 'data-phase': p.name });
      var up = p.metrics.filter(function (x) { return x.beyond; });
      var has = document.querySelector('#mb-flames [data-flame="' + p.name + '"]');
      sec.appendChild(el('div', { cls: 'phase-head' }, [el('h2', { text: p.name })].concat(up.map(function (x) {
        return el('span', { cls: 'verdict ' + verdictCls(x), text: x.label + ' ' + (x.change_pct > 0 ? '+' : '') + num(x.change_pct, 1) + '%' });
      })).concat([phaseLinks(names, names.indexOf(p.name), has ? [p.name + '.diff.svg'] : [])])));
      var fn = p.functions;
      sec.appendChild(el('div', { cls: 'grid2 row2' }, [
        card('Metrics', 'old \u2192 new', [metricTable(p)]),
        card('Functions whose share moved most', fn ? 'self share, ' + fn.old_samples + ' \u2192 ' + fn.new_samples + ' samples' : null,
          [fn && fn.rows.length ? scroll(deltaTable(fn)) : el('p', { cls: 'small', text: 'no samples on one side' })])]));
      if (p.syscalls && p.syscalls.length)
        sec.appendChild(card('Syscalls', 'share of on-CPU and us/call, old \u2192 new, \u00b1 95% from the batches',
          [scroll(sysDiffTable(p.syscalls))]));
      sec.appendChild(card('Differential flame graph', 'widths: new; red grew, blue shrank (share of samples)', [flame(p.name)]));
      m.appendChild(sec);
    });
  }

  /* ---- the A/B page (muxbpf ab --out: ab.json) ----------------------------------------------- */
  function ci(lo, hi, d) { return '[' + num(lo, d) + ', ' + num(hi, d) + ']'; }
  function signed(v, d) { return v === null || v === undefined ? '-' : (v > 0 ? '+' : '') + num(v, d); }
  function abCls(v) { return v === 'slower' ? 'up' : v === 'faster' ? 'down' : 'same'; }
  /* the ratios with their intervals on one axis around 1 */
  function forest(phases) {
    var lo = 1, hi = 1;
    phases.forEach(function (p) {
      if (isFinite(p.ci_low)) lo = Math.min(lo, p.ci_low);
      if (isFinite(p.ci_high)) hi = Math.max(hi, p.ci_high);
    });
    var pad = Math.max(0.02, (hi - lo) * 0.08);
    lo -= pad; hi += pad;
    var x = function (v) { return (100 * (v - lo) / (hi - lo)).toFixed(2) + '%'; };
    return el('div', { cls: 'forest' }, phases.map(function (p) {
      return el('div', { cls: 'frow' }, [el('a', { href: '#p-' + p.name, cls: 'fname', text: p.name }),
        el('div', { cls: 'faxis' }, [
          el('i', { cls: 'one', style: 'left:' + x(1) }),
          el('b', { cls: 'ci ' + abCls(p.verdict), style: 'left:' + x(p.ci_low) + ';width:calc(' + x(p.ci_high) + ' - ' + x(p.ci_low) + ')',
            title: 'B/A 95% interval ' + ci(p.ci_low, p.ci_high, 3) }),
          el('u', { cls: 'pt', style: 'left:' + x(p.ratio), title: 'B/A ' + num(p.ratio, 3) })]),
        el('span', { cls: 'verdict ' + abCls(p.verdict), text: p.verdict })]);
    }).concat([el('div', { cls: 'frow small' }, [el('span', { cls: 'fname' }), el('div', { cls: 'faxis ticks' }, [
      el('span', { style: 'left:0', text: num(lo, 2) }), el('span', { style: 'left:' + x(1), text: '1' }),
      el('span', { style: 'right:0', text: num(hi, 2) })]), el('span', { text: 'B/A' })])]));
  }
  function abPage() {
    var d = D.data, names = d.phases.map(function (p) { return p.name; });
    document.title = 'muxbpf ab: ' + base(d.a.netmux) + ' vs ' + base(d.b.netmux);
    var build = function (x) {
      return el('span', {}, [el('span', { cls: 'mono', text: x.netmux }), el('br'), (x.version || '') +
        (x.env && x.env.length ? ' \u00b7 env ' + x.env.join(' ') : '')]);
    };
    app.appendChild(el('header', { cls: 'top', id: 'top' }, [
      el('h1', {}, ['muxbpf ab ', el('span', { cls: 'kind', text: '\u2014 B against A, ' + (d.metric === 'instructions' ? 'instructions' : 'CPU') + ' per command' })]),
      meta([['A', build(d.a)], ['B', build(d.b)],
        ['design', 'both up at once, blocks alternating A/B over ' + d.rounds + ' rounds per phase; scale ' + d.scale + ', ' + d.freq + ' Hz; ' + num(d.wall_s, 0) + ' s'],
        ['CPU', d.cpu_source],
        ['instructions', d.metric === 'instructions' ? d.instructions_source_why + ' (the verdicts are on instructions; time beside them in the text and ab.json)' : 'not measured (--metric time)'],
        ['verdict rule', 'faster/slower needs the 95% interval of B/A off 1, p < ' + d.alpha + ' and at least ' + num(100 * d.min_effect, 1) + '%']])]));
    app.appendChild(toc(names));
    var m = el('main');
    app.appendChild(m);
    var counts = {};
    d.phases.forEach(function (p) { counts[p.verdict] = (counts[p.verdict] || 0) + 1; });
    var summary = Object.keys(counts).map(function (k) { return counts[k] + ' ' + k; }).join(', ');
    m.appendChild(card('Verdicts', summary + ' (of ' + d.phases.length + ' phases); below 1: B is cheaper', [forest(d.phases), table([
      { label: 'phase', get: function (p) { return p.name; } },
      { label: 'verdict', get: function (p) { return p.verdict; }, cls: function (p) { return abCls(p.verdict); } },
      { label: 'B/A', num: true, get: function (p) { return p.ratio; }, fmt: function (v) { return num(v, 3); } },
      { label: '95% interval', get: function (p) { return ci(p.ci_low, p.ci_high, 3); }, cls: function () { return 'nw'; } },
      { label: 'p', num: true, get: function (p) { return p.p; }, fmt: function (v) { return v === null ? '-' : v < 0.001 ? v.toExponential(1) : num(v, 3); } },
      { label: 'mdd %', num: true, get: function (p) { return p.mdd === null ? null : 100 * p.mdd; }, fmt: function (v) { return num(v, 1); },
        title: 'the smallest difference this run could have called' },
      { label: 'A us/cmd', num: true, get: function (p) { return p.a.cpu_per_cmd_us; }, fmt: function (v) { return num(v, 2); } },
      { label: 'B us/cmd', num: true, get: function (p) { return p.b.cpu_per_cmd_us; }, fmt: function (v) { return num(v, 2); } },
      { label: 'cmds/block', num: true, get: function (p) { return p.commands_per_block; } }
    ], d.phases, { cls: 'abverdicts' })], 'verdicts'));
    m.appendChild(files(D.files));
    d.phases.forEach(function (p, i) {
      var sec = el('section', { cls: 'phase', id: 'p-' + p.name, 'data-phase': p.name });
      var has = document.querySelector('#mb-flames [data-flame="' + p.name + '"]');
      sec.appendChild(el('div', { cls: 'phase-head' }, [el('h2', { text: p.name }),
        el('span', { cls: 'verdict ' + abCls(p.verdict), text: p.verdict }),
        el('span', { cls: 'sum', text: 'B/A ' + num(p.ratio, 3) + ' ' + ci(p.ci_low, p.ci_high, 3) + ' \u00b7 p ' +
          (p.p < 0.001 ? p.p.toExponential(1) : num(p.p, 3)) + ' \u00b7 A ' + num(p.a.cpu_per_cmd_us, 2) + ' us/cmd, B ' +
          num(p.b.cpu_per_cmd_us, 2) + ' us/cmd' }),
        phaseLinks(names, i, has ? [p.name + '.diff.svg'] : [])]));
      /* --metric instructions with callgrind: the function deltas are in instructions */
      var fs = function (x) { return x.self_us || x.self_instructions; };
      var ft = function (x) { return x.total_us || x.total_instructions; };
      var rounds = p.a.rounds_us.map(function (a, k) { return { k: k + 1, a: a, b: p.b.rounds_us[k], first: p.b_first[k] ? 'B' : 'A' }; });
      sec.appendChild(el('div', { cls: 'grid2 row2' }, [
        card('Functions, B \u2212 A', d.functions_unit === 'instructions' ? 'instructions per command (callgrind), 95% interval' : 'us of CPU per command (user samples), 95% interval', [p.functions.length ? scroll(table([
          { label: 'self', num: true, get: function (x) { return fs(x).delta; }, fmt: function (v) { return signed(v, 3); },
            cls: function (x) { return fs(x).ci_low > 0 ? 'up' : fs(x).ci_high < 0 ? 'down' : ''; } },
          { label: 'self interval', get: function (x) { return ci(fs(x).ci_low, fs(x).ci_high, 3); }, cls: function () { return 'nw'; } },
          { label: 'total', num: true, get: function (x) { return ft(x).delta; }, fmt: function (v) { return signed(v, 3); } },
          { label: 'total interval', get: function (x) { return ci(ft(x).ci_low, ft(x).ci_high, 3); }, cls: function () { return 'nw'; } },
          { label: 'only in', get: function (x) { return x.only_in ? 'only in ' + x.only_in.toUpperCase() : ''; },
            title: 'defined in that build\'s objects only: the other build has no such function' },
          { label: 'function', get: function (x) { return x.name; } }
        ], p.functions, { cls: 'fn abfn' })) : el('p', { cls: 'small', text: 'no samples' })]),
        el('div', {}, [
          card('Syscalls, B \u2212 A', 'per command, on-CPU exact (the time ledger)', [p.syscalls.length ? scroll(table([
            { label: 'us', num: true, get: function (x) { return x.cpu_us.delta; }, fmt: function (v) { return signed(v, 3); },
              cls: function (x) { return x.cpu_us.ci_low > 0 ? 'up' : x.cpu_us.ci_high < 0 ? 'down' : ''; } },
            { label: 'interval', get: function (x) { return ci(x.cpu_us.ci_low, x.cpu_us.ci_high, 3); }, cls: function () { return 'nw'; } },
            { label: 'calls A', num: true, get: function (x) { return x.calls.a; }, fmt: function (v) { return num(v, 3); } },
            { label: 'calls B', num: true, get: function (x) { return x.calls.b; }, fmt: function (v) { return num(v, 3); } },
            { label: 'syscall', get: function (x) { return x.name; } }
          ], p.syscalls, { cls: 'sys absys' })) : el('p', { cls: 'small', text: 'no syscalls' })]),
          card('Rounds', 'us of CPU per command, each block', [table([
            { label: 'round', num: true, get: function (x) { return x.k; } },
            { label: 'first', get: function (x) { return x.first; } },
            { label: 'A', num: true, get: function (x) { return x.a; }, fmt: function (v) { return num(v, 2); } },
            { label: 'B', num: true, get: function (x) { return x.b; }, fmt: function (v) { return num(v, 2); } }
          ], rounds, { cls: 'rounds' })])])]));
      sec.appendChild(card('Differential flame graph', 'widths: B; red: B spends more per command, blue: less', [flame(p.name)]));
      m.appendChild(sec);
    });
  }

  var pages = { run: runPage, diff: diffPage, ab: abPage };
  (pages[D.kind] || runPage)();
  var left = document.getElementById('mb-flames');
  if (left) left.parentNode.removeChild(left);
  document.body.setAttribute('data-ready', '1');
})();
