#!/usr/bin/env node
// Fails unless every scope a grammar can assign (the "name", "contentName"
// and capture names of its rules) appears in at least one committed token
// snapshot under test/snap: every token class of every grammar is pinned.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const grammars = [
  'syntaxes/pact.tmLanguage.json',
  'syntaxes/jql.tmLanguage.json',
  'syntaxes/jql-yaml.tmLanguage.json',
  'syntaxes/datalog.tmLanguage.json',
  'syntaxes/pact-injection.tmLanguage.json',
];

function scopesOf(rule, out) {
  if (Array.isArray(rule)) {
    rule.forEach((r) => scopesOf(r, out));
    return out;
  }
  if (typeof rule !== 'object' || rule === null) {
    return out;
  }
  for (const [k, v] of Object.entries(rule)) {
    if ((k === 'name' || k === 'contentName') && typeof v === 'string') {
      v.split(/\s+/).filter(Boolean).forEach((s) => out.add(s));
    } else if (typeof v === 'object') {
      scopesOf(v, out);
    }
  }
  return out;
}

function snapshots(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      snapshots(p, out);
    } else if (e.name.endsWith('.snap')) {
      for (const line of fs.readFileSync(p, 'utf8').split('\n')) {
        const m = /^#\s*\^+\s+(.*)$/.exec(line);
        if (m) {
          m[1].split(/\s+/).filter(Boolean).forEach((s) => out.add(s));
        }
      }
    }
  }
  return out;
}

const seen = snapshots(path.join(root, 'test', 'snap'), new Set());
let missing = 0;
for (const g of grammars) {
  const json = JSON.parse(fs.readFileSync(path.join(root, g), 'utf8'));
  const scopes = scopesOf({ patterns: json.patterns, repository: json.repository }, new Set());
  const absent = [...scopes].filter((s) => !seen.has(s)).sort();
  if (absent.length) {
    missing += absent.length;
    console.error(`${g}: ${absent.length} of ${scopes.size} scopes appear in no snapshot:\n  ${absent.join('\n  ')}`);
  } else {
    console.log(`${g}: all ${scopes.size} scopes covered`);
  }
}
process.exit(missing ? 1 : 0);
