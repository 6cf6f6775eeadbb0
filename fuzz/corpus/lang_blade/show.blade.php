@extends('layouts.app')

@section('title', $product->name)

@push('head')
    <meta name="description" content="{{ Str::limit(strip_tags($product->description), 150) }}">
@endpush

@section('content')
    <nav class="mb-6 text-sm text-slate-500" aria-label="Breadcrumb">
        @foreach ($product->category->ancestry() as $crumb)
            <a href="{{ route('products.index', ['category' => $crumb->slug]) }}">{{ $crumb->name }}</a>
            <span aria-hidden="true">/</span>
        @endforeach
        <span>{{ $product->name }}</span>
    </nav>

    <article class="grid gap-10 md:grid-cols-2">
        <img src="{{ asset('images/products/'.$product->sku.'.webp') }}" alt="{{ $product->name }}" class="w-full rounded-xl">

        <div>
            <h1 class="font-display text-3xl font-semibold">{{ $product->name }}</h1>
            <p class="product-card__price mt-3 text-2xl">{{ Number::currency((float) $product->price, in: config('shop.currency')) }}</p>

            @if ($rating = $product->averageRating())
                <p class="mt-1 text-sm text-amber-600">★ {{ $rating }} / 5</p>
            @endif

            <div class="prose mt-6 max-w-none">{!! $product->description !!}</div>

            <form method="POST" action="{{ route('cart.add', $product) }}" class="mt-8 flex items-end gap-4"
                  x-data="quantityPicker(1, {{ min($product->stock, 20) }})">
                @csrf
                <div>
                    <label for="quantity" class="block text-sm">{{ __('Quantity') }}</label>
                    <div class="mt-1 flex items-center">
                        <button type="button" @click="decrement" class="px-3">−</button>
                        <input id="quantity" name="quantity" type="number" x-model="quantity" min="1" class="w-16 text-center">
                        <button type="button" @click="increment" class="px-3">+</button>
                    </div>
                    @error('quantity')
                        <p class="mt-1 text-xs text-red-600">{{ $message }}</p>
                    @enderror
                </div>
                <button type="submit" class="btn-primary" @disabled($product->stock === 0)>
                    {{ __('Add to cart') }}
                </button>
            </form>

            @if ($product->tags->isNotEmpty())
                <ul class="mt-6 flex flex-wrap gap-2">
                    @foreach ($product->tags as $tag)
                        <li class="rounded-full bg-slate-100 px-3 py-1 text-xs">#{{ $tag->name }}</li>
                    @endforeach
                </ul>
            @endif
        </div>
    </article>

    <section id="reviews" class="mt-16">
        <h2 class="text-xl font-semibold">{{ __('Reviews') }}</h2>
        @forelse ($product->reviews as $review)
            <article class="border-b border-slate-200 py-4">
                <p class="text-amber-600">{{ str_repeat('★', $review->rating) }}</p>
                <h3 class="font-medium">{{ $review->title }}</h3>
                <p class="text-sm text-slate-600">{{ $review->body }}</p>
            </article>
        @empty
            <p class="mt-2 text-sm text-slate-500">{{ __('No reviews yet.') }}</p>
        @endforelse
    </section>

    @if ($related->isNotEmpty())
        <section id="related-products" class="mt-16">
            <h2 class="mb-4 text-xl font-semibold">{{ __('You may also like') }}</h2>
            <div class="grid grid-cols-2 gap-6 md:grid-cols-4">
                @foreach ($related as $item)
                    <x-product-card :product="$item" />
                @endforeach
            </div>
        </section>
    @endif
@endsection

@push('scripts')
    <script>
        document.querySelector('#reviews')?.addEventListener('toggle', () => {
            window.dispatchEvent(new CustomEvent('reviews-opened', { detail: { sku: @json($product->sku) } }));
        });
    </script>
@endpush
