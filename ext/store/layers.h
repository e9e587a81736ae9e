/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A store's configuration rows and its layers (ext/FORMAT.md, "Stores").
**
** A fixed store is one filter, its shape in the rows kind, version,
** capacity, seed, fpr and the layout's own keys.  A scalable store has
** the same five common rows (capacity: its first layer's; fpr: the bound
** on its compound rate), growth, tightening and layers, and for each layer
** i the rows layer.i.capacity, layer.i.fpr and layer.i.<layout key>.  Layer
** i is sized for capacity * growth^i at fpr * (1 - tightening) *
** tightening^i, so that the layers' rates sum to less than fpr however
** many there are (Almeida et al., "Scalable Bloom Filters", 2007).  Its
** chunk ids follow the previous layer's; its rows are written only when a
** chunk first changes, so adding a layer costs a few configuration rows,
** whatever its size.
*/
#ifndef STORE_LAYERS_H
#define STORE_LAYERS_H

#include "store/layout.h"

/* Writes a new store's configuration (and a fixed store's zero chunk
** rows), then reads it back into s. */
int store_write_config(store *s, const store_options *o);

/* Reads the configuration into s: SQLITE_OK, or an error naming the
** damage. */
int store_read_config(store *s);

/* Reads the configuration again if a rollback may have undone a layer or
** another connection may have added one (its layers row differs). */
int store_refresh_layers(store *s);

/* Adds the next layer of a scalable store (the newest is full). */
int store_add_layer(store *s);

#endif
