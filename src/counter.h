/*-------------------------------------------------------------------------
 *
 * counter.h
 *	  Counters, offered to the concerns that hand out counter IDs
 *	  (collections keying new documents, importers adopting IDs).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_COUNTER_H
#define DOCMODEL_COUNTER_H

/*
 * Add delta (>= 0) to the non-transactional or gapless counter named name
 * and return the new value, exactly as docmodel.incr(name, delta) does;
 * when it is absent, create it at 0 first if create is true (as
 * docmodel.next_id() does), else raise P0002. The caller must be in a
 * transaction that may write; errors are those of docmodel.incr().
 */
extern int64 DocmodelCounterAdd(text *name, int64 delta, bool create);

#endif /* DOCMODEL_COUNTER_H */
