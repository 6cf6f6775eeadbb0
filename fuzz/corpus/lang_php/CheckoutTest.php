<?php

namespace Tests\Feature;

use App\Contracts\PaymentGateway;
use App\Data\PaymentResult;
use App\Enums\OrderStatus;
use App\Models\Coupon;
use App\Models\Customer;
use App\Models\Order;
use App\Models\Payment;
use App\Models\Product;
use Illuminate\Foundation\Testing\RefreshDatabase;
use Mockery;
use Tests\TestCase;

class CheckoutTest extends TestCase
{
    use RefreshDatabase;

    private Customer $customer;

    protected function setUp(): void
    {
        parent::setUp();

        $this->customer = Customer::factory()->create();
    }

    public function test_guest_is_redirected_to_login(): void
    {
        $this->get(route('checkout.index'))->assertRedirect(route('login'));
    }

    public function test_successful_checkout_creates_paid_order_and_decrements_stock(): void
    {
        $product = Product::factory()->create(['price' => 2500, 'stock' => 10]);
        $this->fakeGateway(PaymentResult::success('pi_test_123'));

        $this->actingAs($this->customer->user)
            ->post(route('cart.add', $product), ['quantity' => 3])
            ->assertRedirect(route('cart.index'));

        $response = $this->actingAs($this->customer->user)->post(route('checkout.store'), $this->validPayload());

        $order = Order::query()->firstOrFail();
        $response->assertRedirect(route('checkout.success', ['number' => $order->number]));

        $this->assertSame(OrderStatus::Paid, $order->status);
        $this->assertSame(7, $product->fresh()->stock);
        $this->assertSame(3, $order->itemCount());
        $this->assertDatabaseHas('payments', [
            'payable_type' => Order::class,
            'payable_id' => $order->id,
            'provider_reference' => 'pi_test_123',
            'status' => Payment::STATUS_SUCCEEDED,
        ]);
    }

    public function test_declined_payment_cancels_order_and_restores_stock(): void
    {
        $product = Product::factory()->create(['stock' => 4]);
        $this->fakeGateway(PaymentResult::failure('Your card was declined.'));

        $this->actingAs($this->customer->user)->post(route('cart.add', $product), ['quantity' => 2]);

        $this->actingAs($this->customer->user)
            ->post(route('checkout.store'), $this->validPayload())
            ->assertSessionHasErrors('payment');

        $this->assertSame(OrderStatus::Cancelled, Order::query()->firstOrFail()->status);
        $this->assertSame(4, $product->fresh()->stock);
    }

    public function test_percent_coupon_is_applied_before_tax(): void
    {
        $product = Product::factory()->create(['price' => 10000, 'stock' => 5]);
        Coupon::query()->create(['code' => 'SPRING10', 'type' => Coupon::TYPE_PERCENT, 'value' => 10]);
        $this->fakeGateway(PaymentResult::success('pi_test_456'));

        $this->actingAs($this->customer->user)->post(route('cart.add', $product), ['quantity' => 1]);
        $this->actingAs($this->customer->user)->post(route('cart.coupon'), ['code' => 'spring10']);
        $this->actingAs($this->customer->user)->post(route('checkout.store'), $this->validPayload());

        $order = Order::query()->firstOrFail();
        $this->assertEquals(1000, (float) $order->discount_total);
        $this->assertEquals(900, (float) $order->tax_total);
        $this->assertEquals(9900, (float) $order->grand_total);
    }

    public function test_cannot_buy_more_than_available_stock(): void
    {
        $product = Product::factory()->create(['stock' => 1]);

        $this->actingAs($this->customer->user)
            ->post(route('cart.add', $product), ['quantity' => 2])
            ->assertSessionHasErrors('quantity');
    }

    private function fakeGateway(PaymentResult $result): void
    {
        $gateway = Mockery::mock(PaymentGateway::class);
        $gateway->shouldReceive('name')->andReturn('fake');
        $gateway->shouldReceive('charge')->andReturn($result);

        $this->app->instance(PaymentGateway::class, $gateway);
    }

    /**
     * @return array<string, string>
     */
    private function validPayload(): array
    {
        return [
            'name' => 'Hanako Yamada',
            'address_line1' => '1-2-3 Jingumae',
            'city' => 'Shibuya-ku, Tokyo',
            'postal_code' => '150-0001',
            'country' => 'JP',
            'payment_token' => 'pm_card_visa',
        ];
    }
}
