'use client';
import { useEffect, useRef, useState } from 'react';

/**
 * Whether the element is within `rootMargin` of the viewport (IntersectionObserver, which
 * reports once as soon as it observes). Starts false.
 */
export function useInView<T extends Element>(rootMargin = '400px 0px'): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T | null>(null);
  const [inView, setInView] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const obs = new IntersectionObserver((entries) => setInView(entries.some((e) => e.isIntersecting)), { rootMargin });
    obs.observe(el);
    return () => obs.disconnect();
  }, [rootMargin]);
  return [ref, inView];
}
