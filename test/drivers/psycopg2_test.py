"""docmodel through psycopg2 (Debian's python3-psycopg2) as a program uses
it: parameters interpolated by the driver (str as a quoted literal, int and
Decimal as numbers, datetime as timestamptz, None as NULL, Json for jsonb),
transactions, errors read from e.pgcode and e.diag. Connects with the PG*
environment variables. Prints one "test drivers psycopg2: NAME ... ok|FAILED"
a check."""
import datetime
import decimal
import sys
import traceback

import psycopg2
import psycopg2.errors
from psycopg2.extras import Json

conn = psycopg2.connect("")
conn.autocommit = True
checks = []


def check(fn):
    checks.append(fn)
    return fn


def q(sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall() if cur.description else None


def fails(sql, params=None):
    try:
        q(sql, params)
    except psycopg2.Error as e:
        return e
    raise AssertionError("no error from " + sql)


@check
def setup():
    q("SELECT docmodel.create_collection('py_users')")
    q("SELECT docmodel.create_lookup('py_users', 'email', ARRAY['email'])")


@check
def insert_expiry_as_python_types():
    now = datetime.datetime.now(datetime.timezone.utc)
    for key, exp in [("user::1", 3600), ("user::2", decimal.Decimal("60")),
                     ("user::3", now + datetime.timedelta(hours=1)),
                     ("user::4", datetime.timedelta(minutes=5)), ("user::5", "1 hour"),
                     ("user::6", None)]:
        (cas,), = q("SELECT docmodel.insert(%s, %s, %s, %s)",
                    ("py_users", key, Json({"name": key, "email": key + "@x"}), exp))
        assert cas > 0
    rows = q("SELECT expires_at IS NOT NULL FROM py_users WHERE id LIKE %s ORDER BY id", ("user::%",))
    assert [r[0] for r in rows] == [True] * 5 + [False], rows


@check
def kv_and_cas():
    (doc, cas, ver), = q("SELECT * FROM docmodel.get_with_cas(%s, %s)", ("py_users", "user::6"))
    assert doc["name"] == "user::6" and ver == 1
    (new,), = q("SELECT docmodel.replace(%s, %s, %s, %s, %s)",
                ("py_users", "user::6", Json({"name": "six"}), cas, 600))
    assert new > cas
    (stale,), = q("SELECT docmodel.replace_if_cas(%s, %s, %s, %s)",
                  ("py_users", "user::6", Json({"name": "x"}), cas))
    assert stale is None
    q("SELECT docmodel.upsert(%s, %s, %s, %s, %s)", ("py_users", "user::6", Json({"name": "six"}), None, True))
    q("SELECT docmodel.touch(%s, %s, %s)", ("py_users", "user::6", 0))
    (doc, cas), = q("SELECT * FROM docmodel.get_and_touch(%s, %s, %s)", ("py_users", "user::6", 30))
    assert doc["name"] == "six"
    (doc, lcas), = q("SELECT * FROM docmodel.get_and_lock(%s, %s, %s)", ("py_users", "user::6", 5))
    q("SELECT docmodel.unlock(%s, %s, %s)", ("py_users", "user::6", lcas))
    (removed,), = q("SELECT docmodel.remove_if_cas(%s, %s, %s)", ("py_users", "user::5", 1))
    assert removed is None


@check
def cas_loop_in_a_transaction():
    conn.autocommit = False
    try:
        for attempt in range(3):
            (doc, cas, ver), = q("SELECT * FROM docmodel.get_with_cas(%s, %s)", ("py_users", "user::1"))
            if attempt == 0:
                q("SELECT docmodel.upsert(%s, %s, %s)", ("py_users", "user::1", Json(doc)))
            (new,), = q("SELECT docmodel.replace_if_cas(%s, %s, %s, %s)",
                        ("py_users", "user::1", Json(dict(doc, n=attempt)), cas))
            if new is not None:
                break
        conn.commit()
        assert attempt == 1, attempt
    finally:
        conn.rollback()
        conn.autocommit = True


@check
def subdoc_counters_lookup():
    (r,), = q("SELECT docmodel.mutate_in(%s, %s, %s, %s, %s)",
              ("py_users", "user::1", Json([{"op": "increment", "path": "logins", "delta": 1}]), None, 60))
    assert r["cas"] > 0
    (r,), = q("SELECT docmodel.lookup_in(%s, %s, %s)",
              ("py_users", "user::1", Json([{"op": "get", "path": "logins"}])))
    assert r[0]["value"] == 1
    (v,), = q("SELECT docmodel.incr(%s, %s, %s)", ("py_hits", 1, 0))
    assert v == 0
    (k,), = q("SELECT docmodel.next_key(%s)", ("py_user",))
    assert k == "py_user::1"
    (d,), = q("SELECT docmodel.get_by(%s, %s, %s)", ("py_users", "email", "user::1@x"))
    assert d["name"] == "user::1"


@check
def error_fields():
    e = fails("SELECT docmodel.insert(%s, %s, %s)", ("py_users", "user::1", Json({})))
    assert isinstance(e, psycopg2.errors.UniqueViolation)
    d = e.diag
    assert (d.datatype_name, d.table_name, d.column_name, d.constraint_name) == \
        ("DocumentExists", "py_users", "id", "py_users_pkey"), (d.datatype_name, d.constraint_name)
    e = fails("SELECT docmodel.upsert(%s, %s, %s)", ("py_users", "user::9", Json({"email": "user::1@x"})))
    assert (e.pgcode, e.diag.constraint_name) == ("23505", "docmodel_lookup_email")
    e = fails("SELECT docmodel.replace(%s, %s, %s, %s)", ("py_users", "user::1", Json({}), 1))
    assert isinstance(e, psycopg2.errors.SerializationFailure) and e.diag.datatype_name == "CasMismatch"
    e = fails("SELECT docmodel.remove(%s, %s)", ("py_users", "user::404"))
    assert e.pgcode == "P0002" and e.diag.datatype_name == "DocumentNotFound"
    e = fails("SELECT docmodel.mutate_in(%s, %s, %s)",
              ("py_users", "user::1", Json([{"op": "insert", "path": "logins", "value": 1}])))
    assert (e.pgcode, e.diag.datatype_name, e.diag.table_name) == ("22030", "PathExists", "py_users")


failed = 0
for fn in checks:
    name = fn.__name__.replace("_", " ")
    try:
        fn()
        print("test drivers psycopg2: %s ... ok" % name)
    except Exception:
        failed += 1
        print("test drivers psycopg2: %s ... FAILED" % name)
        print("  " + traceback.format_exc().replace("\n", "\n  ")[:1500])
conn.close()
sys.exit(1 if failed else 0)
