import { useEffect, useState } from 'react';
import type { Paginated, Product, ProductSort } from '@/types';
import { useCart } from '@/hooks/useCart';
import { useDebounce } from '@/hooks/useDebounce';
import { productService } from '@/services/productService';
import { chunk } from '@/utils/format';
import { ProductCard } from './ProductCard';

export interface ProductListProps {
  category?: string;
  columns?: number;
}

type LoadState =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'ready'; page: Paginated<Product> };

export function ProductList({ category, columns = 4 }: ProductListProps) {
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<ProductSort>('newest');
  const [pageNumber, setPageNumber] = useState(1);
  const [state, setState] = useState<LoadState>({ kind: 'loading' });
  const debouncedSearch = useDebounce(search, 350);
  const { add } = useCart();

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    productService
      .list({ search: debouncedSearch, category, sort, page: pageNumber }, controller.signal)
      .then((page) => setState({ kind: 'ready', page }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ kind: 'error', message: error instanceof Error ? error.message : 'Failed to load products' });
        }
      });
    return () => controller.abort();
  }, [debouncedSearch, category, sort, pageNumber]);

  useEffect(() => setPageNumber(1), [debouncedSearch, category, sort]);

  return (
    <section className="product-list">
      <div className="product-list__toolbar">
        <input
          type="search"
          placeholder="Search products"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <select value={sort} onChange={(event) => setSort(event.target.value as ProductSort)}>
          <option value="newest">Newest</option>
          <option value="price-asc">Price: low to high</option>
          <option value="price-desc">Price: high to low</option>
        </select>
      </div>

      {state.kind === 'loading' && <p className="muted">Loading…</p>}
      {state.kind === 'error' && <p role="alert">{state.message}</p>}
      {state.kind === 'ready' && state.page.items.length === 0 && <p className="muted">No products found.</p>}
      {state.kind === 'ready' &&
        [...chunk(state.page.items, columns)].map((row, index) => (
          <div className="product-list__row" key={index}>
            {row.map((product) => (
              <ProductCard key={product.id} product={product} onAddToCart={add} />
            ))}
          </div>
        ))}

      {state.kind === 'ready' && state.page.total > state.page.pageSize && (
        <nav className="pagination">
          <button type="button" disabled={pageNumber === 1} onClick={() => setPageNumber((n) => n - 1)}>
            Previous
          </button>
          <span>
            {pageNumber} / {Math.ceil(state.page.total / state.page.pageSize)}
          </span>
          <button
            type="button"
            disabled={pageNumber * state.page.pageSize >= state.page.total}
            onClick={() => setPageNumber((n) => n + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
