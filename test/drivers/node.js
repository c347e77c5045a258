// docmodel through node-postgres (the pg package) as a service uses it: a
// pool, parameterized queries (every parameter sent untyped), transactions,
// errors read from their fields. Connects with the PG* environment
// variables. Prints one "test drivers node: NAME ... ok|FAILED" a check.
'use strict';
const { Pool } = require('pg');
const assert = require('assert');

const pool = new Pool({ max: 4 });
const checks = [];
const check = (name, fn) => checks.push([name, fn]);
const q = async (sql, params) => (await pool.query(sql, params)).rows;
const one = async (sql, params) => (await q(sql, params))[0];
const fails = async (sql, params) => {
  try { await pool.query(sql, params); } catch (e) { return e; }
  throw new Error('no error from ' + sql);
};

check('setup', async () => {
  await q("SELECT docmodel.create_collection('users')");
  await q("SELECT docmodel.create_collection('sessions')");
  await q("SELECT docmodel.create_collection('orders')");
  await q("SELECT docmodel.create_lookup('users', 'email', ARRAY['email'])");
});

check('insert, expiry untyped: number, string, Date, null', async () => {
  for (const [key, exp] of [['session::1', 3600], ['session::2', '1 hour'],
    ['session::3', new Date(Date.now() + 3600e3)], ['session::4', null]]) {
    const r = await one('SELECT docmodel.insert($1, $2, $3, $4) AS cas',
      ['sessions', key, { user: 'user::1' }, exp]);
    assert.match(r.cas, /^\d+$/);
  }
  const rows = await q("SELECT id, expires_at IS NOT NULL AS e FROM sessions ORDER BY id");
  assert.deepStrictEqual(rows.map((r) => r.e), [true, true, true, false]);
});

check('insert without expiry, upsert, replace, remove', async () => {
  await q('SELECT docmodel.insert($1, $2, $3)', ['users', 'user::1', { name: 'Ann', email: 'ann@x' }]);
  await q('SELECT docmodel.upsert($1, $2, $3, $4)', ['users', 'user::2', { name: 'Bob' }, 60]);
  await q('SELECT docmodel.upsert($1, $2, $3, $4, $5)', ['users', 'user::2', { name: 'Bob' }, null, true]);
  const { cas } = await one('SELECT cas FROM users WHERE id = $1', ['user::2']);
  const r = await one('SELECT docmodel.replace($1, $2, $3, $4, $5) AS cas',
    ['users', 'user::2', { name: 'Bo' }, cas, 120]);
  assert.ok(BigInt(r.cas) > BigInt(cas));
  await q('SELECT docmodel.remove($1, $2, $3)', ['users', 'user::2', r.cas]);
  assert.strictEqual((await one('SELECT docmodel.exists($1, $2) AS e', ['users', 'user::2'])).e, false);
});

check('get, get_with_cas: document, cas and version in one row', async () => {
  const g = await one('SELECT docmodel.get($1, $2) AS doc', ['users', 'user::1']);
  assert.strictEqual(g.doc.name, 'Ann');
  const r = await one('SELECT * FROM docmodel.get_with_cas($1, $2)', ['users', 'user::1']);
  assert.strictEqual(r.doc.name, 'Ann');
  assert.match(r.cas, /^\d+$/);
  assert.strictEqual(r.ver, 1);
  assert.strictEqual((await q('SELECT * FROM docmodel.get_with_cas($1, $2)', ['users', 'user::404'])).length, 0);
});

check('touch, get_and_touch, get_and_lock, unlock', async () => {
  await q('SELECT docmodel.touch($1, $2, $3)', ['sessions', 'session::1', 600]);
  await q('SELECT docmodel.touch($1, $2, $3)', ['sessions', 'session::1', new Date(Date.now() + 60e3)]);
  const t = await one('SELECT * FROM docmodel.get_and_touch($1, $2, $3)', ['sessions', 'session::1', '30']);
  assert.strictEqual(t.doc.user, 'user::1');
  const l = await one('SELECT * FROM docmodel.get_and_lock($1, $2, $3)', ['sessions', 'session::2', 5]);
  const e = await fails('SELECT docmodel.upsert($1, $2, $3)', ['sessions', 'session::2', {}]);
  assert.strictEqual(e.code, '55P03');
  assert.strictEqual(e.dataType, 'DocumentLocked');
  assert.strictEqual(e.where, undefined); // no internal statement
  await q('SELECT docmodel.unlock($1, $2, $3)', ['sessions', 'session::2', l.cas]);
});

check('a CAS retry loop in transactions, without errors', async () => {
  await q('SELECT docmodel.insert($1, $2, $3)', ['orders', 'order::1', { total: 0 }]);
  const add = async (amount) => {
    const c = await pool.connect();
    try {
      for (let i = 0; i < 20; i++) {
        await c.query('BEGIN');
        const cur = (await c.query('SELECT * FROM docmodel.get_with_cas($1, $2)', ['orders', 'order::1'])).rows[0];
        const r = (await c.query('SELECT docmodel.replace_if_cas($1, $2, $3, $4) AS cas',
          ['orders', 'order::1', { total: cur.doc.total + amount }, cur.cas])).rows[0];
        await c.query('COMMIT');
        if (r.cas !== null) return i;
      }
      throw new Error('no write after 20 tries');
    } finally { c.release(); }
  };
  await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(add));
  assert.strictEqual((await one('SELECT docmodel.get($1, $2) AS d', ['orders', 'order::1'])).d.total, 36);
  const stale = await one('SELECT docmodel.replace_if_cas($1, $2, $3, $4) AS cas', ['orders', 'order::1', {}, '1']);
  assert.strictEqual(stale.cas, null);
  const gone = await one('SELECT docmodel.remove_if_cas($1, $2, $3) AS cas', ['orders', 'order::1', '1']);
  assert.strictEqual(gone.cas, null);
});

check('sub-documents: lookup_in, mutate_in (specs as JSON text), counters', async () => {
  const specs = JSON.stringify([{ op: 'increment', path: 'logins', delta: 1 }, { op: 'upsert', path: 'last', value: 'today' }]);
  const m = await one('SELECT docmodel.mutate_in($1, $2, $3, $4, $5) AS r', ['users', 'user::1', specs, null, 3600]);
  assert.ok(m.r.cas > 0);
  await q('SELECT docmodel.mutate_in($1, $2, $3)', ['users', 'user::1', specs]);
  const l = await one('SELECT docmodel.lookup_in($1, $2, $3) AS r', ['users', 'user::1', JSON.stringify([{ op: 'get', path: 'logins' }])]);
  assert.strictEqual(l.r[0].value, 2);
  const n = await one('SELECT docmodel.incr($1, $2, $3) AS v', ['hits', 1, 0]);
  assert.strictEqual(n.v, '0');
  assert.strictEqual((await one('SELECT docmodel.incr($1, $2) AS v', ['hits', 5])).v, '5');
  assert.strictEqual((await one('SELECT docmodel.decrement($1, $2) AS v', ['hits', 2])).v, '3');
  assert.strictEqual((await one('SELECT docmodel.next_key($1) AS k', ['user'])).k, 'user::1');
});

check('the rest of the API: get_multi, exists, meta, counters, rename_key, bucket_append, purge_expired', async () => {
  const m = await q('SELECT * FROM docmodel.get_multi($1, $2)', ['users', ['user::1', 'user::404']]);
  assert.deepStrictEqual(m.map((r) => r.key), ['user::1']);
  assert.strictEqual((await one('SELECT docmodel.exists($1, $2) AS e', ['users', 'user::1'])).e, true);
  assert.strictEqual((await one('SELECT docmodel.meta($1, $2) AS m', ['users', 'user::1'])).m.id, 'user::1');
  await q('SELECT docmodel.counter_create($1, $2, $3)', ['orders_seq', 10, false]);
  assert.strictEqual((await one('SELECT docmodel.counter_value($1) AS v', ['orders_seq'])).v, '10');
  assert.strictEqual((await one('SELECT docmodel.counter_advance($1, $2) AS v', ['orders_seq', 20])).v, '20');
  const e = await fails('SELECT docmodel.counter_create($1)', ['orders_seq']);
  assert.deepStrictEqual([e.code, e.dataType, e.table, e.constraint], ['23505', 'DocumentExists', 'counter_state', 'counter_state_pkey']);
  await q('SELECT docmodel.counter_drop($1)', ['orders_seq']);
  assert.strictEqual((await one('SELECT docmodel.next_id($1, $2) AS v', ['item', '42'])).v, '1');
  assert.deepStrictEqual((await q('SELECT k FROM docmodel.counter_keys($1) AS k', ['user'])).map((r) => r.k), ['user::1']);
  await q('SELECT docmodel.insert($1, $2, $3)', ['orders', 'order::2', { total: 1 }]);
  assert.match((await one('SELECT docmodel.rename_key($1, $2, $3) AS c', ['orders', 'order::2', 'order::3'])).c, /^\d+$/);
  assert.strictEqual((await one('SELECT docmodel.bucket_append($1, $2, $3, $4) AS k', ['orders', 'log::order', { at: 1 }, 10])).k, 'log::order::1');
  await q("UPDATE sessions SET expires_at = now() - interval '1 s' WHERE id = $1", ['session::4']);
  assert.strictEqual((await one('SELECT docmodel.purge_expired($1) AS n', ['sessions'])).n, '1');
});

check('a lookup: get_by', async () => {
  const r = await one('SELECT docmodel.get_by($1, $2, $3) AS d', ['users', 'email', 'ann@x']);
  assert.strictEqual(r.d.name, 'Ann');
});

check('errors: fields a program reads', async () => {
  let e = await fails('SELECT docmodel.insert($1, $2, $3)', ['users', 'user::1', {}]);
  assert.deepStrictEqual([e.code, e.dataType, e.table, e.column, e.constraint], ['23505', 'DocumentExists', 'users', 'id', 'users_pkey']);
  e = await fails('SELECT docmodel.upsert($1, $2, $3)', ['users', 'user::9', { email: 'ann@x' }]);
  assert.deepStrictEqual([e.code, e.dataType, e.table, e.constraint], ['23505', 'DocumentExists', 'users', 'docmodel_lookup_email']);
  e = await fails('SELECT docmodel.replace($1, $2, $3, $4)', ['users', 'user::1', {}, '1']);
  assert.deepStrictEqual([e.code, e.dataType, e.column], ['40001', 'CasMismatch', 'cas']);
  e = await fails('SELECT docmodel.replace($1, $2, $3)', ['users', 'user::404', {}]);
  assert.deepStrictEqual([e.code, e.dataType], ['P0002', 'DocumentNotFound']);
  e = await fails('SELECT docmodel.mutate_in($1, $2, $3)', ['users', 'user::1', JSON.stringify([{ op: 'replace', path: 'nope', value: 1 }])]);
  assert.deepStrictEqual([e.code, e.dataType, e.table], ['2203A', 'PathNotFound', 'users']);
  // a boolean is sent as the text 'true': not an interval
  e = await fails('SELECT docmodel.insert($1, $2, $3, $4)', ['users', 'user::8', {}, true]);
  assert.strictEqual(e.code, '22007');
});

(async () => {
  let failed = 0;
  for (const [name, fn] of checks) {
    try {
      await fn();
      console.log(`test drivers node: ${name} ... ok`);
    } catch (e) {
      failed++;
      console.log(`test drivers node: ${name} ... FAILED`);
      console.log('  ' + String(e.stack || e).split('\n').slice(0, 4).join('\n  '));
    }
  }
  await pool.end();
  process.exit(failed ? 1 : 0);
})();
